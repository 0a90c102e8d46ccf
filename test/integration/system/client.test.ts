import { describe, expect, it } from 'vitest';
import { createDespachoClient } from '#clients/typescript/index';
import { adminToken, useTwin } from '#support/twin';

/** The generated client (clients/typescript) against the twin: typed paths, bodies and answers. */
const t = useTwin();

describe('the typed client', () => {
  it('creates an account and a token, then reads the token holder with it', async () => {
    const admin = createDespachoClient({ baseUrl: t.twin.url, token: adminToken });
    const account = await admin.POST('/api/v1/admin/accounts', { body: { name: 'Typed Client SA', kind: 'partner' } });
    expect(account.response.status).toBe(201);
    const accountId = account.data!.data.id;
    const token = await admin.POST('/api/v1/admin/tokens', { body: { account_id: accountId, name: 'typed', role: 'partner', scopes: ['orders:read'] } });
    expect(token.data?.data.scopes).toEqual(['orders:read']);

    const partner = createDespachoClient({ baseUrl: t.twin.url, token: token.data!.data.token });
    const me = await partner.GET('/api/v1/me');
    expect(me.data?.data.account).toMatchObject({ id: accountId, name: 'Typed Client SA', kind: 'partner' });
    expect(me.data?.data.token.scopes).toEqual(['orders:read']);
  });

  it('answers a failure as `error`, typed by its declared status', async () => {
    const partner = createDespachoClient({ baseUrl: t.twin.url, token: 'dsp_not-a-token' });
    const res = await partner.GET('/api/v1/orders/{id}', { params: { path: { id: '1' } } });
    expect(res.response.status).toBe(401);
    expect(res.data).toBeUndefined();
    expect(res.error).toMatchObject({ success: false, error: 'unauthorized' });
    // Without a token, API Gateway answers itself: its body is declared too.
    const none = await createDespachoClient({ baseUrl: t.twin.url }).GET('/api/v1/orders/{id}', { params: { path: { id: '1' } } });
    expect(none.response.status).toBe(401);
    expect(none.error).toMatchObject({ message: 'Unauthorized' });
  });
});
