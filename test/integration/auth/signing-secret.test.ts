import { describe, expect, it } from 'vitest';
import { useTwin } from '#support/twin';
import { run } from '#bin/cli';
import { adminToken } from '#support/twin';

const t = useTwin();

describe('manifest signing secrets', () => {
  it('are made by the admin, shown once, and rotate on a second call', async () => {
    const { accountId } = await t.account('Signing Couriers');
    const first = await t.call('POST', `/v1/admin/accounts/${accountId}/signing-secret`);
    expect(first.status).toBe(201);
    expect(first.body.data).toMatchObject({ account_id: accountId, secret: expect.stringMatching(/^mss_[A-Za-z0-9_-]{43}$/), rotated: false });
    expect(first.body.important).toContain('shown only once');
    const second = await t.call('POST', `/v1/admin/accounts/${accountId}/signing-secret`);
    expect(second.body.data.rotated).toBe(true);
    expect(second.body.data.secret).not.toBe(first.body.data.secret);
    const list = await t.call('GET', '/v1/admin/accounts');
    expect(list.text).not.toContain(second.body.data.secret);
    expect(list.body.data.find((a: { id: number }) => a.id === accountId).has_signing_secret).toBe(true);
  });

  it('are for the admin only, and only for accounts that exist', async () => {
    const partner = await t.account('Not Admin Couriers');
    expect((await t.call('POST', `/v1/admin/accounts/${partner.accountId}/signing-secret`, { token: partner.token })).status).toBe(403);
    expect((await t.call('POST', '/v1/admin/accounts/987654/signing-secret')).status).toBe(404);
  });

  it('can be made with the CLI', async () => {
    const { accountId } = await t.account('CLI Signing Couriers');
    let out = '';
    const io = { env: { DESPACHO_URL: t.twin.apiUrl, DESPACHO_TOKEN: adminToken }, stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (out += s) } };
    expect(await run(['accounts', 'signing-secret', String(accountId)], io)).toBe(0);
    expect(out).toMatch(/mss_[A-Za-z0-9_-]{43}/);
  });
});
