import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { documentTypeLabels, documentTypes } from '#core/documents/model';

describe("the documents page's list of document_type values", () => {
  it('names every value the API takes, with its label, and no other', () => {
    const page = readFileSync(new URL('../../docs/partners/documents.md', import.meta.url), 'utf8');
    const table = page.split('<!-- document-types -->')[1]!.split('\n\n')[1]!;
    const rows = [...table.matchAll(/^\| `([a-z]+)` \| ([^|]+) \|/gm)].map((m) => [m[1], m[2].trim()]);
    expect(rows).toEqual(documentTypes.map((t) => [t, documentTypeLabels[t]]));
  });
});
