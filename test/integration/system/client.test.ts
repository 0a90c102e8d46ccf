import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { createDespachoClient, items, pages, verifyWebhook, WebhookVerificationError } from '#clients/typescript/index';
import { adminToken, useTwin } from '#support/twin';
import { useReceiver } from '#support/receiver';
import { pdf } from '#support/files';

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

describe('the typed client follows every page of a list', () => {
  it('iterates a cursor list (the events feed) and a page-number list (the documents) to their last item', async () => {
    const partner = await t.account(`Pages ${Math.random()}`);
    for (let i = 0; i < 3; i++) {
      const res = await t.call('POST', '/v1/transport/documents/upload', { token: partner.token, body: { document_type: 'awb', file_base64: pdf(`page ${i}`).toString('base64'), filename: `p${i}.pdf` } });
      expect(res.status).toBe(201);
    }
    await t.settle();
    const api = createDespachoClient({ baseUrl: t.twin.url, token: partner.token });
    const events: { type: string }[] = [];
    for await (const e of items<{ type: string }>(api, '/api/v1/events', { params: { query: { limit: '1', types: 'document.uploaded' } } })) events.push(e);
    expect(events.map((e) => e.type)).toEqual(['document.uploaded', 'document.uploaded', 'document.uploaded']);
    let pageCount = 0;
    for await (const _ of pages(api, '/api/v1/transport/documents', { params: { query: { per_page: 1 } } })) pageCount++;
    expect(pageCount).toBe(3);
    const documents: { file_name: string }[] = [];
    for await (const d of items<{ file_name: string }>(api, '/api/v1/transport/documents', { params: { query: { per_page: 2 } } })) documents.push(d);
    expect(documents.map((d) => d.file_name).sort()).toEqual(['p0.pdf', 'p1.pdf', 'p2.pdf']);
  });
});

describe('the typed client verifies webhook deliveries', () => {
  const receiver = useReceiver();

  it('accepts a real delivery by webhook-signature and by X-Service-Signature, as the stock standardwebhooks library does, and refuses a changed body', async () => {
    const partner = await t.account(`Verify ${Math.random()}`);
    const sub = await t.call('POST', '/webhook-subscriptions', { token: partner.token, body: { endpoint_url: receiver.url, events: ['document.uploaded'] } });
    expect(sub.status).toBe(201);
    const secret: string = sub.body.data.hmac_secret;
    expect((await t.call('POST', `/webhook-subscriptions/${sub.body.data.id}/test`, { token: partner.token })).status).toBe(200);
    await receiver.until(1);
    const [got] = receiver.received;
    const headers = Object.fromEntries(Object.entries(got.headers).map(([k, v]) => [k, String(v)]));

    const event = await verifyWebhook(secret, got.body, headers);
    expect(event.type).toBe('webhook.test');
    expect(new Webhook(secret.replace(/^whsec_/, '').replace(/-/g, '+').replace(/_/g, '/')).verify(got.body, headers)).toEqual(event);

    const serviceOnly = Object.fromEntries(Object.entries(headers).filter(([k]) => !k.startsWith('webhook-')));
    expect(await verifyWebhook(secret, got.body, serviceOnly)).toEqual(event);

    const changed = got.body.replace('webhook.test', 'webhook.tesu');
    await expect(verifyWebhook(secret, changed, headers)).rejects.toThrow(WebhookVerificationError);
    await expect(verifyWebhook(secret, changed, serviceOnly)).rejects.toThrow(WebhookVerificationError);
    await expect(verifyWebhook(secret, got.body, headers, { now: Date.now() + 3_600_000 })).rejects.toThrow(/from now/);
  });
});
