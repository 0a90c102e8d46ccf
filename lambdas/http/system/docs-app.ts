/**
 * The reference page's script: Redoc (MIT), as @redocly/cli ships its standalone build, rendering
 * this origin's /api/openapi.json. Compiled by esbuild into one file (docs-script.ts); nothing is
 * fetched from elsewhere.
 */
import { init } from '@redocly/cli/lib/chunks/redoc.standalone.js';

const root = document.getElementById('redoc');
if (root) {
  init(
    '/api/openapi.json',
    {
      expandResponses: '200,201,202',
      hideDownloadButtons: false,
      jsonSamplesExpandLevel: 2,
      // No telemetry: the page talks to this origin only (its CSP allows no other).
      disableTelemetry: true,
    },
    root,
  );
}
