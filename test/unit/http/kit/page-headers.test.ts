import { describe, expect, it } from 'vitest';
import { pageHeaders, permissionsPolicy } from '#http/kit/page-headers';

describe("an HTML page's headers", () => {
  it('deny every known feature but what the page names, which goes to the origins it gives', () => {
    const policy = permissionsPolicy({ 'clipboard-write': 'self' });
    expect(policy).toContain('camera=()');
    expect(policy).toContain('clipboard-write=(self)');
    expect(policy).not.toContain('clipboard-write=()');
  });

  it('carry the exact policy given, and the legacy XSS filter off', () => {
    expect(pageHeaders({ 'default-src': "'none'", 'script-src': "'self'" })).toMatchObject({
      'Content-Security-Policy': "default-src 'none'; script-src 'self'",
      'X-XSS-Protection': '0',
    });
  });
});
