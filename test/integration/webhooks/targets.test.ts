/**
 * Where the twin sends webhooks (issue 41): by default where a deployed stage does, https to
 * public addresses only; with WEBHOOK_LOCAL_RECEIVERS=1 (the suite's own receivers, a developer's)
 * also this machine's loopback, never the cloud's metadata address, a private network or the
 * twin's own API.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { useTwin } from '#support/twin';
import { useReceiver } from '#support/receiver';

const t = useTwin();
const receiver = useReceiver();
let partner: { token: string };
const suiteSetting = process.env.WEBHOOK_LOCAL_RECEIVERS;

beforeAll(async () => {
  partner = await t.account('Hook Targets SA');
});
afterEach(() => {
  process.env.WEBHOOK_LOCAL_RECEIVERS = suiteSetting;
});

const subscribe = (endpoint_url: string) => t.call('POST', '/webhook-subscriptions', { token: partner.token, body: { endpoint_url, events: ['document.uploaded'] } });

describe('the twin’s webhook targets', () => {
  it('refuses by default what a deployed stage refuses: plain http, loopback, the metadata address, a private network', async () => {
    delete process.env.WEBHOOK_LOCAL_RECEIVERS;
    for (const url of [receiver.url, 'https://127.0.0.1/hook', 'https://169.254.169.254/latest/meta-data/', 'https://10.0.0.7/hook', `https://[::1]:${new URL(t.twin.url).port}/api/v1/admin/accounts`]) {
      const res = await subscribe(url);
      expect(res.status, url).toBe(422);
      expect(res.body.errors).toHaveProperty('endpoint_url');
    }
    expect((await subscribe('https://hooks.example.com/despacho')).status).toBe(201);
  });

  it('with local receivers on, takes a receiver on 127.0.0.1 and delivers to it, and still refuses the metadata address, a private network and its own API', async () => {
    process.env.WEBHOOK_LOCAL_RECEIVERS = '1';
    const ok = await subscribe(receiver.url);
    expect(ok.status).toBe(201);
    const test = await t.call('POST', `/webhook-subscriptions/${ok.body.data.id}/test`, { token: partner.token });
    expect(test.body).toMatchObject({ success: true, data: { status_code: 200 } });
    const own = new URL(t.twin.apiUrl);
    for (const url of ['http://169.254.169.254/latest/meta-data/', 'http://192.168.1.10/hook', `http://localhost:${own.port}/api/v1/admin/accounts`, `http://127.0.0.1:${own.port}/api/v1/me`]) {
      const res = await subscribe(url);
      expect(res.status, url).toBe(422);
    }
  });

  it('checks the address a name resolves to at delivery: localhost is refused once local receivers are off again', async () => {
    process.env.WEBHOOK_LOCAL_RECEIVERS = '1';
    const sub = await subscribe(receiver.url.replace('127.0.0.1', 'localhost'));
    expect(sub.status).toBe(201);
    delete process.env.WEBHOOK_LOCAL_RECEIVERS;
    const test = await t.call('POST', `/webhook-subscriptions/${sub.body.data.id}/test`, { token: partner.token });
    expect(test.body.success).toBe(false);
    expect(test.body.data.error).toMatch(/private or reserved/);
  });
});
