import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { channelRules } from '#core/customs/channel-rules';

describe("the console's messages", () => {
  it('say every channel rule in Spanish and in English, so no rule reason reaches the broker in the API’s words', () => {
    const source = readFileSync('lambdas/http/console/i18n.ts', 'utf8');
    const missing = channelRules.map((r) => r.id).filter((id) => !new RegExp(`'rule_${id}': \\['[^']+', '[^']+'\\]`).test(source) && !new RegExp(`'rule_${id}': \\['[^']+', "[^"]+"\\]`).test(source));
    expect(missing).toEqual([]);
  });
});
