import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { manifestSignature } from '#core/manifests/signature';
import type { TwinJobs } from '#twin/jobs';
import { samplePdf } from '#bin/sample-files';
import { workbook } from '../workbooks';
import { answerOf } from '../http';
import { checkContract } from '../contract';
import { createDespachoClient, type DespachoClient } from '#clients/typescript/index';

/** One HTTP answer, parsed when it is JSON. */
export interface Answer {
  status: number;
  headers: Headers;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  text: string;
}

export interface SendOptions {
  token?: string | null;
  body?: unknown;
  raw?: string | Buffer;
  headers?: Record<string, string>;
}

/**
 * How far the service's clock runs ahead of the wall clock. A 429 is no finding: the fuzz moves
 * the service's clock a minute on (a fresh rate window) and sends the request again. The fuzz
 * installs the clock (`useClock`) while it runs.
 */
export const serviceClock = { offset: 0, now: () => new Date(Date.now() + serviceClock.offset) };

/** Sends one request to the service under `base` (its /api URL, or its root for the pages); a 429 is sent again a minute later. */
export async function send(base: string, method: string, path: string, o: SendOptions = {}): Promise<Answer> {
  for (let attempt = 0; ; attempt++) {
    const res = await sendOnce(base, method, path, o);
    if (res.status !== 429 || attempt === 2) return res;
    serviceClock.offset += 61_000;
  }
}

async function sendOnce(base: string, method: string, path: string, o: SendOptions): Promise<Answer> {
  const headers: Record<string, string> = { ...o.headers };
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  let body: string | Buffer | undefined = o.raw;
  if (o.body !== undefined) {
    body = JSON.stringify(o.body);
    headers['content-type'] ??= 'application/json';
  }
  if (method === 'GET' || method === 'HEAD') body = undefined;
  return answerOf(await fetch(base + path, { method, headers, body, redirect: 'manual' }));
}

export interface Tenant {
  accountId: number;
  token: string;
  tokenId: number;
}

/**
 * What the fuzz runs against: three accounts and the first one's real resources, so that path
 * ids and references in bodies name records that exist. `a` is a partner with every partner scope
 * and a manifest signing secret (its intake requests are signed); `b` a broker; `c` another
 * partner, the tenant who must never reach `a`'s records. Every record of `a` carries `marker`
 * in a name, note or metadata, so an answer to `c` that holds it has leaked `a`'s data.
 */
export interface World {
  apiUrl: string;
  rootUrl: string;
  admin: string;
  a: Tenant;
  b: Tenant;
  c: Tenant;
  signingSecret: string;
  marker: string;
  receiverUrl: string;
  /** Real values of `a`'s records, by kind (see `paramKinds` in routes.ts). */
  pools: Record<string, string[]>;
  /** Order id -> its item ids, for ship and fulfill lines. */
  orderItems: Map<string, number[]>;
  /** Tokens and accounts the fuzz itself must not revoke or re-key (it would lock itself out). */
  protectedTokenIds: Set<string>;
  protectedAccountIds: Set<string>;
  /** Ready-made files for uploads. */
  files: { pdf: Buffer; xlsx: Buffer; oddXlsx: Buffer; manifestJson: Buffer };
  stop(): Promise<void>;
}

/** Runs the twin's queues (intake, pipeline, webhooks) until nothing is due. */
export async function settle(jobs: TwinJobs, queues?: string[]) {
  for (let i = 0; i < 400; i++) if ((await jobs.runDue(queues as never)) === 0) return;
  throw new Error('the queues did not settle');
}

/** A webhook receiver on localhost that accepts everything. */
async function receiver(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, server };
}

/**
 * A client of the service as a partner's would be: the typed client (clients/typescript), so a
 * path, parameter or body the document does not have fails to compile, and each answer held to
 * openapi.json (`checkContract`) as the integration suite's are.
 */
function worldClient(apiUrl: string, token: string): DespachoClient {
  const api = createDespachoClient({ baseUrl: apiUrl.replace(/\/api$/, ''), token, retry: false });
  api.use({
    async onResponse({ request, response }) {
      const url = new URL(request.url);
      checkContract(request.method, url.pathname.replace(/^\/api/, '') + url.search, await answerOf(response.clone()));
      return response;
    },
  });
  return api;
}

/** The body of a call that must succeed (a 429 is sent again a minute later, as `send` does); else an error naming it. */
async function must<T>(what: string, call: () => Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const { data, error, response } = await call();
    if (response.status === 429 && attempt < 2) {
      serviceClock.offset += 61_000;
      continue;
    }
    if (!response.ok || data === undefined) throw new Error(`fuzz world: ${what} answered ${response.status}: ${JSON.stringify(error ?? data).slice(0, 500)}`);
    return data;
  }
}

/** Creates the accounts and `a`'s records through the API, as a client would. */
export async function buildWorld(opts: { apiUrl: string; rootUrl: string; adminToken: string; jobs: TwinJobs; label: string }): Promise<World> {
  const { apiUrl, adminToken: admin, jobs } = opts;
  const op = worldClient(apiUrl, admin);
  const marker = `ZQXMARK${randomUUID().slice(0, 8)}`;
  const { url: receiverUrl, server } = await receiver();

  // Every token holds every scope its role may (none named): the fuzz reaches every route's function.
  const account = async (name: string, kind: 'partner' | 'broker') => {
    const acc = await must('account', () => op.POST('/api/v1/admin/accounts', { body: { name, kind } }));
    const tok = await must('token', () => op.POST('/api/v1/admin/tokens', { body: { account_id: acc.data.id, name: `${name} token`, role: kind } }));
    return { accountId: acc.data.id, token: tok.data.token, tokenId: tok.data.id };
  };
  const me = (await must('me', () => op.GET('/api/v1/me'))).data;
  const a = await account(`Fuzz A ${marker} ${opts.label}`, 'partner');
  const b = await account(`Fuzz B ${opts.label}`, 'broker');
  const c = await account(`Fuzz C ${opts.label}`, 'partner');
  const spare = await account(`Fuzz spare ${opts.label}`, 'partner');
  const secret = (await must('signing secret', () => op.POST('/api/v1/admin/accounts/{id}/signing-secret', { params: { path: { id: String(a.accountId) } } }))).data.secret;
  const as = worldClient(apiUrl, a.token);

  const pools: Record<string, string[]> = {};
  const add = (kind: string, value: unknown) => (pools[kind] ??= []).push(String(value));

  // Tokens the fuzz may revoke: more of `a`'s (its own revoke route) and of the spare account.
  for (let i = 0; i < 3; i++) {
    const tok = await must('spare token', () => op.POST('/api/v1/admin/tokens', { body: { account_id: a.accountId, name: `spare ${i}`, role: 'partner' } }));
    add('myToken', tok.data.id);
    add('token', tok.data.id);
  }
  add('token', spare.tokenId);
  add('account', spare.accountId);

  // Orders, a warehouse, stock, a shipment.
  const warehouse = { name: `Depósito ${marker}`, address1: 'Calle Falsa 123', city: 'Miami', state: 'FL', postal_code: '33101', country: 'US' };
  await must('warehouse', () => as.PUT('/api/v1/warehouses/{id}', { params: { path: { id: '1' } }, body: warehouse }));
  add('warehouse', 1);
  await must('stock', () => as.PUT('/api/v1/inventory/{sku}', { params: { path: { sku: 'MUG-01' } }, body: { name: `Taza ${marker}`, stock: 50, threshold: 5, warehouse_id: 1 } }));
  add('sku', 'MUG-01');
  const orderItems = new Map<string, number[]>();
  for (let i = 0; i < 3; i++) {
    const order = (
      await must('order', () =>
        as.POST('/api/v1/orders', {
          body: {
            customer: { name: `Cliente ${marker}`, email: 'maria@example.com' },
            shipping_address: { name: 'María Pérez', address1: 'Av. Corrientes 1234', city: 'Buenos Aires', state: 'CABA', postal_code: 'C1043', country: 'AR' },
            items: [
              { sku: 'MUG-01', name: 'Taza', quantity: 2, price: 10.1, weight: 0.4 },
              { sku: 'TEE-02', name: 'Remera', quantity: 1, price: 5, weight: 0.2 },
            ],
            currency: 'USD',
            notes: `Nota ${marker}`,
          },
        }),
      )
    ).data;
    add('order', order.id);
    orderItems.set(String(order.id), order.items.map((it) => it.id));
  }
  const firstOrder = pools.order[0];
  const lines = orderItems.get(firstOrder)!.map((id) => ({ order_item_id: id, quantity: 1 }));
  const ship = (
    await must('ship', () =>
      as.POST('/api/v1/orders/{id}/ship', {
        params: { path: { id: firstOrder } },
        body: { carrier: 'despacho', service: 'standard', packages: [{ weight: 1, length: 10, width: 10, height: 10, items: lines }] },
      }),
    )
  ).data;
  add('shipment', ship.shipment_id);
  add('trackingNumber', ship.tracking_number);

  // A connected marketplace, so a sync can start (its jobs never run during the fuzz: no call out).
  await must('marketplace', () =>
    as.PUT('/api/v1/orders/marketplaces/{channel}', { params: { path: { channel: 'meli' } }, body: { base_url: 'http://127.0.0.1:9/meli', credentials: { accessToken: `tok-${marker}`, sellerId: '1' } } }),
  );

  // Transport documents: two uploaded, one declared for the presigned path.
  const pdf = samplePdf(`Fuzz ${marker}`);
  for (let i = 0; i < 2; i++) {
    const doc = (
      await must('document', () =>
        as.POST('/api/v1/transport/documents/upload', {
          body: { document_type: 'awb', awb_number: `AWBFZ${i}`, metadata: { note: marker }, file_base64: pdf.toString('base64'), filename: `guia-${i}.pdf` },
        }),
      )
    ).data;
    add('document', doc.id);
  }
  const docUpload = (
    await must('document upload-url', () =>
      as.POST('/api/v1/transport/documents/upload-url', { body: { document_type: 'awb', filename: 'grande.pdf', file_size: pdf.length, checksum: 'sha256:' + '0'.repeat(64) } }),
    )
  ).data;
  add('documentUpload', docUpload.upload_id);

  // Stored manifest files: one stored (a multipart form: fetch sets its boundary), one declared.
  const manifestJson = Buffer.from(JSON.stringify({ mawbNumber: 'MAWB-FILE', items: [{ awbNumber: 'AWB1', consigneeName: marker, originCountry: 'CN' }] }));
  const form = new FormData();
  form.append('courier_code', 'DHL');
  form.append('description', `Archivo ${marker}`);
  form.append('file', new Blob([manifestJson], { type: 'application/json' }), 'manifiesto.json');
  // The document types the form's fields; openapi-fetch sends a FormData as it is.
  await must('stored file', () => as.POST('/api/v1/manifests/storage/upload', { body: form as never }));
  const storageUpload = (
    await must('storage upload-url', () =>
      as.POST('/api/v1/manifests/storage/upload-url', { body: { courier_code: 'DHL', file_name: 'grande.json', file_size: 1000, checksum: 'sha256:' + '0'.repeat(64) } }),
    )
  ).data;
  add('storageUpload', storageUpload.upload_id);

  // Courier manifests: one whole (written and processed), one chunk of two, one alternative upload.
  // Signed: the body goes as the very text its signature is over.
  const signed = (body: object, key = randomUUID()) => {
    const raw = JSON.stringify(body);
    return { headers: { 'x-signature': manifestSignature(secret, raw), 'idempotency-key': key }, bodySerializer: () => raw };
  };
  // Identifiers carry no marker (a 404 may name the id it was asked for); names and notes do.
  const mawb = `MAWB-${randomUUID().slice(0, 8)}`;
  const item = (i: number) => ({ awbNumber: `AWBFZ${i}`, consigneeName: `Consignee ${marker}`, consigneeIdType: 'CUIL', consigneeIdNumber: '20123456786', originCountry: 'CN', itemDescription: 'Cotton t-shirt', fobValueUsd: 12.5, amountOfItems: 1 });
  const key = randomUUID();
  const courier = { params: { path: { courier: 'default' } } };
  const whole = { mawbNumber: mawb, items: [item(1), item(2), item(3)] };
  const sub = await must('manifest', () => as.POST('/api/v1/couriers/{courier}/manifests/webhook', { ...courier, body: whole, ...signed(whole, key) }));
  add('submissionKey', key);
  add('manifest', mawb);
  add('flight', mawb);
  if ('batch_id' in sub && sub.batch_id) add('batch', sub.batch_id);
  for (let i = 1; i <= 3; i++) add('awb', `AWBFZ${i}`);
  const base = randomUUID();
  const chunk = { mawbNumber: `${mawb}-C`, items: [item(4)], _chunk_metadata: { chunk_number: 1, total_chunks: 2, base_idempotency_key: base, total_items: 2 } };
  await must('chunk', () => as.POST('/api/v1/couriers/{courier}/manifests/webhook', { ...courier, body: chunk, ...signed(chunk) }));
  add('chunkKey', base);
  const alternative = {
    manifest: `ALT-${randomUUID().slice(0, 8)}`,
    products: [{ awb_number: 'AWBFZ9', consignee: `Consignee ${marker}`, product_description: 'Mate', quantity: 1, unit_value: 10, country_of_manufacture: 'AR' }],
  };
  const alt = (await must('alternative manifest', () => as.POST('/api/v1/manifests', { body: alternative, ...signed(alternative) }))).data;
  add('manifest', alt.manifest_id);
  if (alt.batch_id) add('batch', alt.batch_id);

  // A webhook subscription with a delivery (an order event fanned out to the local receiver).
  const subscription = (
    await must('subscription', () => as.POST('/api/webhook-subscriptions', { body: { endpoint_url: `${receiverUrl}?${marker}`, events: ['order.created', 'order.updated'] } }))
  ).data;
  add('subscription', subscription.id);
  await must('note', () => as.PUT('/api/v1/orders/{id}', { params: { path: { id: pools.order[1] } }, body: { notes: `Otra nota ${marker}` } }));
  await settle(jobs);
  const deliveries = (await must('deliveries', () => as.GET('/api/webhook-subscriptions/{id}/deliveries', { params: { path: { id: String(subscription.id) } } }))).data;
  for (const d of deliveries) add('delivery', d.id);
  if (!pools.delivery?.length) throw new Error('fuzz world: no webhook delivery was made');

  const header = ['Guía Hija', 'Destinatario', 'Nro. Doc.', 'Email', 'Descripción', 'Valor FOB USD', 'País Origen'];
  const files = {
    pdf,
    xlsx: workbook([header, ['XL1', 'Buyer 1', '20-12345678-6', 'b1@example.com', 'Zapatillas', 45.5, 'cn']]),
    oddXlsx: workbook([header, ['\uD800', '', '1e400', '=1+1', '\u202E', -1, 'zz'], [null, 9007199254740993, true, '', '', 'NaN', '']]),
    manifestJson,
  };

  return {
    apiUrl,
    rootUrl: opts.rootUrl,
    admin,
    a,
    b,
    c,
    signingSecret: secret,
    marker,
    receiverUrl,
    pools,
    orderItems,
    protectedTokenIds: new Set([me.token.id, a.tokenId, b.tokenId, c.tokenId].map(String)),
    protectedAccountIds: new Set([me.account.id, a.accountId, b.accountId, c.accountId].map(String)),
    files,
    async stop() {
      server.closeAllConnections();
      server.close();
    },
  };
}
