import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { clientToHashedField, hashedFields } from '../../../../lambdas/core/manifests/identity';

const readme = readFileSync(new URL('../../../../README.md', import.meta.url), 'utf8');

describe('the README', () => {
  it('prints the client-to-hashed field mapping exactly as the code applies it', () => {
    expect(clientToHashedField.map((r) => r.hashed)).toEqual([...hashedFields]);
    for (const r of clientToHashedField) expect(readme).toContain(`| ${r.hashed} | ${r.from} | ${r.note} |`);
  });
});
