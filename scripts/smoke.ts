/**
 * `npm run smoke -- --api <base>/api`: the smoke test the pipeline runs against staging before it
 * offers prod (issue 43), and anyone can run against a twin or a stage. With an admin token
 * (`SMOKE_ADMIN_TOKEN`), as a partner would, over HTTP only:
 *
 * 1. `GET /health` answers 200;
 * 2. the README's first call: an account and a token made with the admin API, `GET /v1/me` with it;
 * 3. a webhook subscription to `manifest.processed` at a receiver (below);
 * 4. a manifest of 10 items submitted, processed to `completed`, its JSON download with 10 products;
 * 5. the `manifest.processed` delivery at the receiver, its signature verified with the stock
 *    Standard Webhooks library and the subscription's secret.
 *
 * The receiver: `--receiver-url` names one that keeps what is POSTed to a path under it and answers
 * a GET of that path with what it kept (`{ deliveries: [{ headers, body }] }`), as a stage's smoke
 * receiver does (the script uses a path of its own, a random one, each run); without it the script
 * listens on 127.0.0.1 itself (a twin, whose webhooks may go to a local receiver). Prints one line per check; exits 1 at the first that fails, saying what it
 * saw. The account it makes stays (named `Smoke <time>`); its token is revoked at the end.
 */
import { createServer } from 'node:http';
import { once } from 'node:events';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { Webhook } from 'standardwebhooks';

const { values } = parseArgs({
  options: {
    api: { type: 'string' },
    'receiver-url': { type: 'string' },
    'timeout-seconds': { type: 'string', default: '600' },
  },
});
const api = (values.api ?? process.env.SMOKE_API_URL ?? '').replace(/\/$/, '');
const adminToken = process.env.SMOKE_ADMIN_TOKEN ?? '';
const deadline = Date.now() + Number(values['timeout-seconds']) * 1000;
if (!/^https?:\/\//.test(api) || !adminToken) {
  console.error('usage: SMOKE_ADMIN_TOKEN=<admin token> npm run smoke -- --api https://<stage host>/api [--receiver-url <smoke receiver>] [--timeout-seconds 600]');
  process.exit(2);
}

class SmokeFailed extends Error {}

async function call(method: string, path: string, token: string | null, body?: unknown, headers: Record<string, string> = {}) {
  for (;;) {
    const res = await fetch(`${api}${path}`, {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let json: any;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    // A 429 is waited out for its retry_after, as a polite client does.
    if (res.status === 429 && Date.now() < deadline) {
      await sleep(Math.max(1, Number(json?.retry_after ?? 1)) * 1000);
      continue;
    }
    return { status: res.status, json, text };
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function expectStatus(what: string, got: { status: number; text: string }, status: number) {
  if (got.status !== status) throw new SmokeFailed(`${what}: expected ${status}, got ${got.status} ${got.text.slice(0, 400)}`);
}

async function until<T>(what: string, probe: () => Promise<{ done: boolean; last: T }>, everyMs = 2000): Promise<T> {
  for (;;) {
    const { done, last } = await probe();
    if (done) return last;
    if (Date.now() > deadline) throw new SmokeFailed(`${what}: not within the time given; last seen ${JSON.stringify(last).slice(0, 400)}`);
    await sleep(everyMs);
  }
}

/** What a receiver was sent at `url`. */
interface Receiver {
  url: string;
  received(): Promise<{ headers: Record<string, string>; body: string }[]>;
  close(): Promise<void>;
}

/** A receiver on 127.0.0.1 in this process: keeps every POST. */
async function localReceiver(): Promise<Receiver> {
  const got: { headers: Record<string, string>; body: string }[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method === 'POST') got.push({ headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])), body: Buffer.concat(chunks).toString('utf8') });
    res.writeHead(204).end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received: async () => got,
    close: async () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** A stage's smoke receiver, at a path of this run's own: a GET of the path answers what was POSTed to it. */
function remoteReceiver(base: string): Receiver {
  const url = `${base.replace(/\/$/, '')}/${randomUUID()}`;
  return {
    url,
    received: async () => {
      const res = await fetch(url);
      return res.ok ? (((await res.json()) as { deliveries?: { headers: Record<string, string>; body: string }[] }).deliveries ?? []) : [];
    },
    close: async () => undefined,
  };
}

const checks: string[] = [];
function passed(line: string) {
  checks.push(line);
  console.log(`ok  ${line}`);
}

async function main() {
  const health = await call('GET', '/health', null);
  expectStatus('GET /health', health, 200);
  passed(`GET /health: 200 (${health.json?.status ?? health.text.slice(0, 40)})`);

  const name = `Smoke ${new Date().toISOString()}`;
  const account = await call('POST', '/v1/admin/accounts', adminToken, { name, kind: 'partner' });
  expectStatus('POST /v1/admin/accounts', account, 201);
  const accountId = account.json.data.id as number;
  const minted = await call('POST', '/v1/admin/tokens', adminToken, { account_id: accountId, name: 'smoke', role: 'partner', scopes: ['manifests:read', 'manifests:write', 'webhooks:write'] });
  expectStatus('POST /v1/admin/tokens', minted, 201);
  const token = minted.json.data.token as string;
  const tokenId = minted.json.data.id as number;
  const me = await call('GET', '/v1/me', token);
  expectStatus('GET /v1/me', me, 200);
  if (me.json.data.account.id !== accountId) throw new SmokeFailed(`GET /v1/me: answered account ${me.json.data.account.id}, not ${accountId}`);
  passed(`the first call: account ${accountId} (${name}) and its token, GET /v1/me 200`);

  const receiver = values['receiver-url'] ? remoteReceiver(values['receiver-url']) : await localReceiver();
  try {
    const subscription = await call('POST', '/webhook-subscriptions', token, { endpoint_url: receiver.url, events: ['manifest.processed'] });
    expectStatus('POST /webhook-subscriptions', subscription, 201);
    const secret = subscription.json.data.hmac_secret as string;
    passed(`a subscription to manifest.processed at ${receiver.url}`);

    const key = randomUUID();
    const manifestNumber = `SMOKE-${key.slice(0, 8)}`;
    const items = Array.from({ length: 10 }, (_, k) => ({
      awbNumber: `SMK${key.slice(0, 6).toUpperCase()}${String(k).padStart(3, '0')}`,
      originCountry: 'US',
      consigneeName: `Smoke Consignee ${k}`,
      consigneeIdType: 'CUIT',
      consigneeIdNumber: '30703088534',
      consigneeAddress: 'Av. Corrientes 1234',
      consigneeCity: 'CABA',
      consigneeProvince: 'Buenos Aires',
      consigneePostalCode: 'C1043',
      itemDescription: 'Cotton t-shirt',
      hsCode: '6109.10.00',
      fobValueUsd: 12.5,
      totalWeightKg: 0.3,
      amountOfItems: 1,
    }));
    const sent = await call('POST', '/v1/couriers/default/manifests/webhook', token, { mawbNumber: `MAWB-${key.slice(0, 8)}`, manifestNumber, items }, { 'idempotency-key': key });
    expectStatus('POST /v1/couriers/default/manifests/webhook', sent, 202);
    const status = await until('the manifest to complete', async () => {
      const s = await call('GET', `/v1/couriers/default/webhook/${key}/status`, token);
      if (s.json?.status === 'failed') throw new SmokeFailed(`the manifest failed: ${s.text.slice(0, 400)}`);
      return { done: s.json?.status === 'completed', last: s.json };
    });
    const download = await call('GET', `/v1/couriers/manifests/${status.batch_id}/download?format=json`, token);
    // A large download answers a redirect to the stored file, which fetch follows.
    const products = download.json?.data?.products;
    if (!Array.isArray(products) || products.length !== 10) throw new SmokeFailed(`the JSON download: expected 10 products, got ${Array.isArray(products) ? products.length : 'none'}`);
    passed(`a manifest of 10 items completed (batch ${status.batch_id}); its JSON download has 10 products`);

    const webhook = new Webhook(secret);
    const delivery = await until(
      'the manifest.processed delivery',
      async () => {
        const got = (await receiver.received()).find((d) => {
          try {
            return (webhook.verify(d.body, d.headers) as { type?: string }).type === 'manifest.processed';
          } catch {
            return false;
          }
        });
        return { done: got !== undefined, last: got ?? null };
      },
      1000,
    );
    passed(`manifest.processed delivered and verified with the subscription's secret (webhook-id ${delivery!.headers['webhook-id']})`);
    await call('DELETE', `/webhook-subscriptions/${subscription.json.data.id}`, token);
  } finally {
    await receiver.close();
    await call('DELETE', `/v1/admin/tokens/${tokenId}`, adminToken).catch(() => undefined);
  }
}

try {
  await main();
  console.log(`smoke: ${checks.length} checks passed against ${api}`);
} catch (err) {
  console.error(`FAIL ${err instanceof SmokeFailed ? err.message : String((err as Error)?.stack ?? err)}`);
  process.exitCode = 1;
}
