import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { clientToHashedField, hashedFields } from '#core/manifests/identity';

const readme = readFileSync(new URL('../../docs/partners/manifests.md', import.meta.url), 'utf8');

describe('the manifests page (docs/partners/manifests.md)', () => {
  it('prints the client-to-hashed field mapping exactly as the code applies it', () => {
    expect(clientToHashedField.map((r) => r.hashed)).toEqual([...hashedFields]);
    for (const r of clientToHashedField) expect(readme).toContain(`| ${r.hashed} | ${r.from} | ${r.note} |`);
  });
});
