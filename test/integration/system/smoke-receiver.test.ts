import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { smokeReceiver, smokeReceiverLimits, type UrlEvent } from '#http/smoke/receiver';
import { smokeDeliveryStore } from '#services/smoke-deliveries';
import { ensureTable } from '#twin/dynamodb-local';

/**
 * The staging smoke receiver's handler on DynamoDB Local, behind a real HTTP server that hands it
 * each request as a function URL would (payload 2.0), spoken to as `npm run smoke` speaks to it.
 */
describe("the smoke test's webhook receiver", () => {
  const tableName = `smoke-receiver-${randomUUID()}`;
  const raw = new DynamoDBClient({ endpoint: inject('dynamoEndpoint'), region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const client = DynamoDBDocumentClient.from(raw);
  let clock = new Date('2026-12-07T12:00:00Z');
  const handle = smokeReceiver({ store: smokeDeliveryStore(client, tableName), now: () => clock });
  let server: Server;
  let base: string;

  beforeAll(async () => {
    await ensureTable(raw, tableName);
    server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const event: UrlEvent = {
        rawPath: new URL(req.url!, 'http://x').pathname,
        headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
        body: Buffer.concat(chunks).toString('base64'),
        isBase64Encoded: true,
        requestContext: { http: { method: req.method! } },
      };
      const out = await handle(event);
      res.writeHead(out.statusCode, out.headers).end(out.body);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server?.close();
    raw.destroy();
  });

  it('keeps a signed delivery under its path and answers it on GET, its signature still verifiable', async () => {
    const url = `${base}/${randomUUID()}`;
    const secret = `whsec_${Buffer.from('a smoke test secret of 32 bytes!').toString('base64')}`;
    const body = JSON.stringify({ type: 'manifest.processed', data: { batch_id: 'b-1' } });
    const id = `msg_${randomUUID()}`;
    const at = new Date();
    const signature = new Webhook(secret).sign(id, at, body);
    const headers = { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature, 'x-other': 'dropped' };
    expect((await fetch(url, { method: 'POST', headers, body })).status).toBe(204);
    const got = (await (await fetch(url)).json()) as { deliveries: { headers: Record<string, string>; body: string }[] };
    expect(got.deliveries).toHaveLength(1);
    expect(got.deliveries[0].body).toBe(body);
    expect(got.deliveries[0].headers['x-other']).toBeUndefined();
    expect(new Webhook(secret).verify(got.deliveries[0].body, got.deliveries[0].headers)).toEqual(JSON.parse(body));
    // Another run's path sees nothing of it.
    expect(await (await fetch(`${base}/${randomUUID()}`)).json()).toEqual({ deliveries: [] });
  });

  it('keeps a delivery an hour, then answers as if it never came', async () => {
    const url = `${base}/${randomUUID()}`;
    await fetch(url, { method: 'POST', body: '{"n":1}' });
    clock = new Date(clock.getTime() + (smokeReceiverLimits.keepSeconds + 1) * 1000);
    expect(await (await fetch(url)).json()).toEqual({ deliveries: [] });
  });

  it('refuses a path that is no UUID, a body past its limit and another method, keeping nothing', async () => {
    for (const path of ['/', '/hooks', '/../x', `/${randomUUID()}/more`, `/${randomUUID().toUpperCase()}`]) {
      expect((await fetch(`${base}${path}`, { method: 'POST', body: '{}' })).status, path).toBe(404);
    }
    const url = `${base}/${randomUUID()}`;
    const big = await fetch(url, { method: 'POST', body: 'x'.repeat(smokeReceiverLimits.maxBodyBytes + 1) });
    expect(big.status).toBe(413);
    const put = await fetch(url, { method: 'PUT', body: '{}' });
    expect([put.status, put.headers.get('allow')]).toEqual([405, 'GET, POST']);
    expect(await (await fetch(url)).json()).toEqual({ deliveries: [] });
  });
});
