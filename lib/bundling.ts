/**
 * How every Lambda is bundled: one minified ESM file per handler with the AWS SDK inside (pinned by
 * the lock file), source maps beside it. The CDK (lib/functions.ts) and `npm run bench:cold`
 * (scripts/bundle.ts) both read this, so the bench measures exactly what is deployed.
 */
export const lambdaBundle = {
  format: 'esm',
  target: 'node22',
  minify: true,
  sourcemap: true,
  sourcesContent: false,
  mainFields: ['module', 'main'],
  /** ESM bundles still meet CommonJS dependencies that call require(). */
  banner: "import { createRequire } from 'module';const require = createRequire(import.meta.url);",
  external: [] as string[],
  /** Stack traces point into the TypeScript sources. */
  nodeOptions: '--enable-source-maps',
} as const;
