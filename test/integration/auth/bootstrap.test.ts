import { describe, expect, it } from 'vitest';
import { run } from '#bin/cli';
import { useTwin } from '#support/twin';

const t = useTwin();

function capture() {
  let text = '';
  return { write: (c: string) => (text += c), text: () => text };
}

describe('cli bootstrap admin-token', () => {
  it("writes a working admin token straight into a stage's table", async () => {
    const out = capture();
    const code = await run(['bootstrap', 'admin-token', '--table', t.tableName], { env: {}, stdout: out, stderr: out });
    expect(code).toBe(0);
    const token = /\b(dsp_\S+)/.exec(out.text())![1];
    const me = await t.call('GET', '/v1/me', { token });
    expect(me.status).toBe(200);
    expect(me.body.data.token.role).toBe('admin');
  });

  it('changes nothing when ADMIN_TOKEN is already a token of the stage', async () => {
    const out = capture();
    const env = { ADMIN_TOKEN: 'bootstrap-chosen-token-0001' };
    expect(await run(['bootstrap', 'admin-token', '--table', t.tableName], { env, stdout: out, stderr: out })).toBe(0);
    expect(await run(['bootstrap', 'admin-token', '--table', t.tableName], { env, stdout: out, stderr: out })).toBe(0);
    expect(out.text()).toContain('nothing changed');
    expect(out.text()).not.toContain(env.ADMIN_TOKEN);
    expect((await t.call('GET', '/v1/me', { token: env.ADMIN_TOKEN })).status).toBe(200);
  });
});
