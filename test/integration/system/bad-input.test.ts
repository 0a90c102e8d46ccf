import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { manifestSignature } from '#core/manifests/signature';
import { pdf, multipart } from '#support/files';
import { item, manifest, submitPath } from '#support/manifests';
import { merchant, placeOrder, webOrder } from '#support/orders';
import { useTwin } from '#support/twin';
import { expandingWorkbook, workbook } from '#support/workbooks';

const t = useTwin();

describe('answers every bad request with a JSON 4xx, never a 500', () => {
  it('serves health without a token', async () => {
    const res = await t.call('GET', '/health', { token: null });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, data: { status: 'ok' } });
  });

  it('answers an unknown route with 404 JSON', async () => {
    const res = await t.call('GET', '/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ success: false, error: 'not_found' });
  });

  it('answers a path outside /api with 404 JSON', async () => {
    const res = await fetch(t.twin.url + '/elsewhere');
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ success: false });
  });

  it('answers a known path with the wrong method with 405 JSON and an Allow header', async () => {
    const res = await t.call('PATCH', '/v1/admin/accounts', { body: {} });
    expect(res.status).toBe(405);
    expect(res.body).toMatchObject({ success: false, error: 'method_not_allowed' });
    expect(res.headers.get('allow')).toBe('POST, GET');
  });

  it('answers a non-numeric path id with 404', async () => {
    for (const id of ['abc', '1.5', '-1', '0', '1e3', '%00', '99999999999999999999']) {
      const res = await t.call('DELETE', `/v1/admin/tokens/${id}`);
      expect(res.status, id).toBe(404);
      expect(res.body.success).toBe(false);
    }
  });

  it('answers malformed JSON with 400', async () => {
    const res = await t.call('POST', '/v1/admin/accounts', { raw: '{"name": "x",', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: 'bad_request' });
  });

  it('answers a body that is not JSON with 415', async () => {
    const res = await t.call('POST', '/v1/admin/accounts', { raw: 'name=x&kind=partner', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(res.status).toBe(415);
    expect(res.body.error).toBe('unsupported_media_type');
  });

  it('answers a body over the route limit with 413', async () => {
    const res = await t.call('POST', '/v1/admin/accounts', { body: { name: 'x'.repeat(2 * 1024 * 1024), kind: 'partner' } });
    expect(res.status).toBe(413);
    expect(res.body.success).toBe(false);
  });

  it('answers a body over the gateway limit with 413 without reading it all', async () => {
    const res = await t.call('POST', '/v1/admin/accounts', { raw: Buffer.alloc(11 * 1024 * 1024, 0x41), headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(413);
  });

  it('names every invalid field as the client sent it', async () => {
    const res = await t.call('POST', '/v1/admin/tokens', { body: { account_id: 'one', name: '', role: 'root', scopes: ['orders:read', 'orders:delete'] } });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(['account_id', 'name', 'role', 'scopes.1']);
  });

  it('rejects unknown fields on operator bodies', async () => {
    const res = await t.call('POST', '/v1/admin/accounts', { body: { name: 'Acme', kind: 'partner', kinds: 'x' } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toHaveProperty('kinds');
  });

  it('rejects nulls, arrays and control characters where text is expected', async () => {
    for (const name of [null, ['a'], 'bad\u0000name', 42]) {
      const res = await t.call('POST', '/v1/admin/accounts', { body: { name, kind: 'partner' } });
      expect(res.status, JSON.stringify(name)).toBe(422);
      expect(res.body.errors).toHaveProperty('name');
    }
  });

  it('accepts unicode names', async () => {
    const res = await t.call('POST', '/v1/admin/accounts', { body: { name: 'Logística Ñandú 🚚', kind: 'partner' } });
    expect(res.status).toBe(201);
    expect(res.body.data.name).toBe('Logística Ñandú 🚚');
  });

  it('puts a request id, security headers and CORS headers on every answer', async () => {
    for (const res of [await t.call('GET', '/health', { token: null }), await t.call('GET', '/v1/me', { token: 'dsp_not-a-token' }), await t.call('GET', '/v1/none')]) {
      expect(res.headers.get('x-request-id')).toBeTruthy();
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('strict-transport-security')).toContain('max-age=');
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('x-powered-by')).toBeNull();
    }
  });

  it('echoes a well-formed X-Request-Id the client sent', async () => {
    const res = await t.call('GET', '/health', { token: null, headers: { 'x-request-id': 'client-req-12345' } });
    expect(res.headers.get('x-request-id')).toBe('client-req-12345');
  });

  it('answers a CORS preflight', async () => {
    const res = await fetch(t.twin.apiUrl + '/v1/me', { method: 'OPTIONS', headers: { origin: 'https://app.example', 'access-control-request-method': 'GET' } });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-headers')).toContain('Authorization');
  });
});

describe('openapi.json', () => {
  it('lists every catalog route with its method', async () => {
    const { routes } = await import('#catalog');
    const { fullPath } = await import('#catalog/routing');
    const res = await t.call('GET', '/openapi.json', { token: null });
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    for (const r of routes) expect(res.body.paths[fullPath(r)]?.[r.method.toLowerCase()], `${r.method} ${r.path}`).toBeDefined();
  });

  it('describes request bodies from the validation schemas', async () => {
    const res = await t.call('GET', '/openapi.json', { token: null });
    const schema = res.body.paths['/api/v1/admin/accounts'].post.requestBody.content['application/json'].schema;
    expect(schema.required).toEqual(['name', 'kind']);
    expect(schema.properties.kind.enum).toEqual(['partner', 'broker']);
  });
});

describe('closes the holes of issue 13: every bad input is a 4xx and nothing is written', () => {
  const json = { 'content-type': 'application/json' };
  /** 2^53, an exponent, the largest double, a 30-digit number and one JSON.parse reads as Infinity. */
  const inexact = ['9007199254740992', '1e20', '1.7976931348623157e308', '123456789012345678901234567890', '1e400'];
  const numberMessage = 'Must be a number from -9007199254740991 to 9007199254740991: JSON numbers beyond that are not exact.';
  const product = (over: Record<string, unknown> = {}) => ({ awb_number: 'ALT0001', consignee: 'Ana Pérez', product_description: 'Taza', quantity: 1, unit_value: 5, country_of_manufacture: 'CN', ...over });
  /** JSON text of `value` with the string "<n>" replaced by the number text `n` (JSON.stringify cannot write these numbers). */
  const withNumber = (value: unknown, n: string) => JSON.stringify(value).replace('"<n>"', n);
  const nested = (levels: number) => '{"a":'.repeat(levels - 1) + '{"a":1}' + '}'.repeat(levels - 1);
  const docBody = (metadata: string) => `{"document_type":"awb","file_base64":"${pdf().toString('base64')}","filename":"guia.pdf","metadata":${metadata}}`;

  async function nothingSubmitted(token: string) {
    await t.intake();
    expect((await t.call('GET', '/v1/couriers/manifests', { token })).body.data).toEqual([]);
    expect((await t.call('GET', '/v1/manifests', { token })).body.data).toEqual([]);
  }
  const documentsOf = async (token: string) => (await t.call('GET', '/v1/transport/documents', { token })).body.meta.total;

  it('asks for X-Signature on every route that feeds manifest intake: alternative, default, chunk and Excel answer 401 without it or with a wrong one', async () => {
    const { accountId, token } = await t.account('Signed Intake');
    const secret = (await t.call('POST', `/v1/admin/accounts/${accountId}/signing-secret`)).body.data.secret as string;
    const baseKey = randomUUID();
    const sheet = await multipart({ mawbNumber: 'SIG-XL' }, { name: 'm.xlsx', data: workbook([['Guía Hija', 'Destinatario', 'Descripción', 'País Origen'], ['SIG1', 'Ana', 'Taza', 'CN']]) });
    const cases: [string, string | Buffer, string][] = [
      ['/v1/manifests', JSON.stringify({ manifest: 'SIG-ALT', products: [product()] }), 'application/json'],
      [submitPath(), JSON.stringify(manifest(1)), 'application/json'],
      [submitPath(), JSON.stringify(manifest(1, { _chunk_metadata: { chunk_number: 1, total_chunks: 2, base_idempotency_key: baseKey, total_items: 2 } })), 'application/json'],
      [submitPath('bfe'), sheet.body, sheet.contentType],
    ];
    for (const [path, raw, type] of cases) {
      for (const signature of [undefined, manifestSignature('another-secret', raw)]) {
        const res = await t.call('POST', path, { token, raw, headers: { 'content-type': type, ...(signature ? { 'x-signature': signature } : {}) } });
        expect(res.status, `${path} ${signature ?? 'unsigned'}`).toBe(401);
        expect(res.body).toMatchObject({ success: false, error: 'unauthorized' });
        expect(res.body.message).toContain('X-Signature');
      }
    }
    await nothingSubmitted(token);
    expect((await t.call('GET', `/v1/couriers/manifests/chunks/${baseKey}/status`, { token })).status).toBe(404);
    const [alternative] = cases;
    const signed = await t.call('POST', alternative[0], { token, raw: alternative[1], headers: { ...json, 'x-signature': manifestSignature(secret, alternative[1]) } });
    expect(signed.status).toBe(201);
  });

  it('refuses manifest item numbers at or beyond 2^53 with 422 naming the item field', async () => {
    const { token } = await t.account('Huge Numbers');
    for (const field of ['fobValueUsd', 'amountOfItems', 'amountOfPackages', 'totalWeightKg', 'totalVolumetricWeightKg']) {
      for (const n of inexact) {
        const raw = withNumber(manifest(1, { items: [item(1, { [field]: '<n>' })] }), n);
        const res = await t.call('POST', submitPath(), { token, raw, headers: json });
        expect(res.status, `${field} ${n}`).toBe(422);
        expect(res.body).toMatchObject({ success: false, error: 'validation_failed', errors: { [`items.0.${field}`]: [numberMessage] } });
      }
    }
    await nothingSubmitted(token);
  });

  it('refuses an alternative-interface unit_value at or beyond 2^53, or a line worth that much, with 422 on unit_value', async () => {
    const { token } = await t.account('Huge Unit Values');
    for (const n of inexact) {
      const res = await t.call('POST', '/v1/manifests', { token, raw: withNumber({ manifest: 'ALT-BIG', products: [product({ unit_value: '<n>' })] }, n), headers: json });
      expect(res.status, n).toBe(422);
      expect(res.body.errors).toEqual({ 'products.0.unit_value': [numberMessage] });
    }
    const line = await t.call('POST', '/v1/manifests', { token, body: { manifest: 'ALT-BIG', products: [product({ unit_value: 9e15, quantity: 2 })] } });
    expect(line.status).toBe(422);
    expect(line.body.errors).toEqual({ 'products.0.unit_value': ['unit_value x quantity must be at most 9007199254740991.'] });
    await nothingSubmitted(token);
  });

  it('refuses document metadata numbers at or beyond 2^53, in JSON and in a multipart field, with 422 naming the metadata path', async () => {
    const { token } = await t.account('Huge Metadata');
    for (const n of inexact) {
      const res = await t.call('POST', '/v1/transport/documents/upload', { token, raw: docBody(`{"declared":{"value":${n}}}`), headers: json });
      expect(res.status, n).toBe(422);
      expect(res.body.errors).toEqual({ 'metadata.declared.value': [numberMessage] });
      const form = await multipart({ document_type: 'awb', metadata: `{"declared":${n}}` }, { name: 'guia.pdf', data: pdf(), type: 'application/pdf' });
      const multi = await t.call('POST', '/v1/transport/documents/upload', { token, raw: form.body, headers: { 'content-type': form.contentType } });
      expect(multi.status, n).toBe(422);
      expect(multi.body.errors).toEqual({ 'metadata.declared': [numberMessage] });
    }
    const presigned = await t.call('POST', '/v1/transport/documents/upload-url', {
      token,
      raw: `{"document_type":"awb","filename":"g.pdf","file_size":10,"checksum":"sha256:${'a'.repeat(64)}","metadata":{"n":1e20}}`,
      headers: json,
    });
    expect(presigned.status).toBe(422);
    expect(presigned.body.errors).toEqual({ 'metadata.n': [numberMessage] });
    expect(await documentsOf(token)).toBe(0);
  });

  it('refuses metadata nested past 32 levels (40, and 10,000) with 422 naming the path, and keeps 31 levels under the body', async () => {
    const { token } = await t.account('Deep Metadata');
    const tooDeep = 'metadata.' + Array(31).fill('a').join('.');
    for (const levels of [40, 10_000]) {
      const res = await t.call('POST', '/v1/transport/documents/upload', { token, raw: docBody(nested(levels)), headers: json });
      expect(res.status, String(levels)).toBe(422);
      expect(res.body.errors).toEqual({ [tooDeep]: ['Must not be nested more than 32 levels deep.'] });
      const form = await multipart({ document_type: 'awb', metadata: nested(levels) }, { name: 'guia.pdf', data: pdf(), type: 'application/pdf' });
      const multi = await t.call('POST', '/v1/transport/documents/upload', { token, raw: form.body, headers: { 'content-type': form.contentType } });
      expect(multi.status, String(levels)).toBe(422);
      expect(multi.body.errors).toEqual({ [tooDeep]: ['Must not be nested more than 32 levels deep.'] });
    }
    expect(await documentsOf(token)).toBe(0);
    const deepest = await t.call('POST', '/v1/transport/documents/upload', { token, raw: docBody(nested(31)), headers: json });
    expect(deepest.status).toBe(201);
    expect(JSON.stringify(deepest.body.data.metadata)).toBe(nested(31));
  });

  it('refuses __proto__, constructor and prototype keys in admin bodies with 422 naming the key, creating nothing', async () => {
    const before = (await t.call('GET', '/v1/admin/accounts')).body.data.length;
    const bodies: [string, string, string][] = [
      ['/v1/admin/accounts', '{"name":"Proto","kind":"partner","__proto__":{"isAdmin":true}}', '__proto__'],
      ['/v1/admin/accounts', '{"name":"Ctor","kind":"partner","constructor":{"prototype":{"isAdmin":true}}}', 'constructor'],
      ['/v1/admin/tokens', '{"account_id":1,"name":"t","role":"admin","prototype":1}', 'prototype'],
    ];
    for (const [path, raw, key] of bodies) {
      const res = await t.call('POST', path, { raw, headers: json });
      expect(res.status, raw).toBe(422);
      expect(res.body).toMatchObject({ success: false, error: 'validation_failed', errors: { [key]: ['This key is not allowed.'] } });
    }
    expect((await t.call('GET', '/v1/admin/accounts')).body.data.length).toBe(before);
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
  });

  it('answers a JSON array or scalar where an object is expected with 422 on body: the order stays open, the document unvalidated', async () => {
    const seller = await merchant(t, 'Array Bodies');
    const order = await placeOrder(t, seller.token);
    for (const raw of ['[1,2,3]', '[]', '"cancel"', '42', 'null']) {
      const res = await t.call('POST', `/v1/orders/${order.id}/cancel`, { token: seller.token, raw, headers: json });
      expect(res.status, raw).toBe(422);
      expect(res.body.errors).toEqual({ body: ['Must be a JSON object.'] });
    }
    expect((await t.call('GET', `/v1/orders/${order.id}`, { token: seller.token })).body.data.status).not.toBe('cancelled');

    const partner = await t.account('Array Documents');
    const broker = await t.account('Array Broker', { kind: 'broker' });
    const doc = await t.call('POST', '/v1/transport/documents/upload', { token: partner.token, raw: docBody('{}'), headers: json });
    const res = await t.call('PUT', `/v1/transport/documents/${doc.body.data.id}/validate`, { token: broker.token, raw: '["x"]', headers: json });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ body: ['Must be a JSON object.'] });
    expect((await t.call('GET', `/v1/transport/documents/${doc.body.data.id}`, { token: partner.token })).body.data.state).toBe(doc.body.data.state);
  });

  it('answers a zip-bomb workbook with 422 on file saying it is too large when expanded', async () => {
    const { token } = await t.account('Zip Bomb');
    const form = await multipart({ mawbNumber: 'BOMB-1' }, { name: 'manifiesto.xlsx', data: expandingWorkbook(300 * 1024 * 1024) });
    const res = await t.call('POST', submitPath('bfe'), { token, raw: form.body, headers: { 'content-type': form.contentType } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ file: ['The workbook is too large when expanded: its contents unzip to more than 256 MB. Split it into smaller files.'] });
    await nothingSubmitted(token);
  });

  it('answers JSON sent to an Excel slug with 422 on file pointing to `default`', async () => {
    const { token } = await t.account('Json To Excel');
    const res = await t.call('POST', submitPath('bfe'), { token, body: manifest(1) });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ success: false, error: 'validation_failed', errors: { file: [expect.stringContaining('`default`')] } });
    expect(res.body.message).toContain('Send JSON manifests to the `default` slug.');
    await nothingSubmitted(token);
  });

  it('refuses control characters, bidirectional controls and unpaired surrogates in identifiers with 422 naming the field', async () => {
    const { token } = await t.account('Sneaky Ids');
    const unsafe = ['MAWB\u202E321', 'MAWB\uD800', 'MAWB\uDC00x', 'MAWB\u0085', 'MA\u2066WB', 'MAWB\u0007'];
    const message = 'Must not contain control characters, bidirectional controls or unpaired surrogates.';
    const manifestFields = ['mawbNumber', 'manifestNumber', 'batchId'];
    const itemFields = ['awbNumber', 'trackingNumber', 'itemIdempotencyKey'];
    for (const id of unsafe) {
      for (const field of manifestFields) {
        const res = await t.call('POST', submitPath(), { token, body: manifest(1, { [field]: id }) });
        expect(res.status, `${field} ${JSON.stringify(id)}`).toBe(422);
        expect(res.body.errors[field]).toEqual([message]);
      }
      for (const field of itemFields) {
        const res = await t.call('POST', submitPath(), { token, body: manifest(1, { items: [item(1, { [field]: id })] }) });
        expect(res.status, `${field} ${JSON.stringify(id)}`).toBe(422);
        expect(res.body.errors[`items.0.${field}`]).toEqual([message]);
      }
      const alternative = await t.call('POST', '/v1/manifests', { token, body: { manifest: id, products: [product({ awb_number: id })] } });
      expect(alternative.status).toBe(422);
      expect(alternative.body.errors).toEqual({ manifest: [message], 'products.0.awb_number': [message] });
      const doc = await t.call('POST', '/v1/transport/documents/upload', { token, body: { document_type: 'awb', file_base64: pdf().toString('base64'), filename: 'g.pdf', awb_number: id, manifest_id: id } });
      expect(doc.status).toBe(422);
      expect(doc.body.errors).toEqual({ awb_number: [message], manifest_id: [message] });
    }
    await nothingSubmitted(token);
    expect(await documentsOf(token)).toBe(0);
    const plain = await t.call('POST', submitPath(), { token, body: manifest(1, { mawbNumber: 'MAWB-Ñandú-😀' }) });
    expect(plain.status).toBe(202);
  });

  it('refuses a webhook endpoint_url holding a bidirectional control with 422 naming endpoint_url, on create and on update', async () => {
    const { token } = await t.account('Bidi Hooks');
    const message = 'Must not contain control characters, bidirectional controls or unpaired surrogates.';
    const made = await t.call('POST', '/webhook-subscriptions', { token, body: { endpoint_url: 'https://hooks.example.com/in', events: ['document.uploaded'] } });
    expect(made.status).toBe(201);
    const controls = ['\u202e', '\u200e', '\u200f', '\u202a', '\u202b', '\u202c', '\u202d', '\u2066', '\u2067', '\u2068', '\u2069', '\u061c'];
    const at = [(c: string) => `https://hooks.example.com/${c}kooh`, (c: string) => `https://hooks.example.com/in?x=${c}1`, (c: string) => `https://hooks.example.com/in#${c}`];
    // Each control in one part of the URL (path, query, fragment), 24 requests: within the subscription rate.
    for (const [i, c] of controls.entries()) {
      const url = at[i % at.length](c);
      const created = await t.call('POST', '/webhook-subscriptions', { token, body: { endpoint_url: url, events: ['document.uploaded'] } });
      expect(created.status, JSON.stringify(url)).toBe(422);
      expect(created.body.errors).toEqual({ endpoint_url: [message] });
      const updated = await t.call('PUT', `/webhook-subscriptions/${made.body.data.id}`, { token, body: { endpoint_url: url } });
      expect(updated.status, JSON.stringify(url)).toBe(422);
      expect(updated.body.errors).toEqual({ endpoint_url: [message] });
    }
    const list = (await t.call('GET', '/webhook-subscriptions', { token })).body.data;
    expect(list.map((s: { endpoint_url: string }) => s.endpoint_url)).toEqual(['https://hooks.example.com/in']);
  });

  it('refuses, in a deployed stage, webhook endpoints whose IPv6 address carries a private IPv4 address', async () => {
    const { token } = await t.account('Sneaky Hooks');
    process.env.STAGE = 'prod';
    try {
      for (const host of ['[::127.0.0.1]', '[::ffff:0:7f00:1]', '[2002:7f00:1::]', '[64:ff9b:1::a9fe:a9fe]', '[64:ff9b::10.0.0.1]']) {
        const res = await t.call('POST', '/webhook-subscriptions', { token, body: { endpoint_url: `https://${host}/hook`, events: ['document.uploaded'] } });
        expect(res.status, host).toBe(422);
        expect(res.body.errors).toEqual({ endpoint_url: ['The endpoint is a private or reserved address.'] });
      }
    } finally {
      process.env.STAGE = 'local';
    }
    expect((await t.call('GET', '/webhook-subscriptions', { token })).body.data).toEqual([]);
  });
});

describe('closes what the schema-driven fuzz found (issue 13, item 2)', () => {
  const json = { 'content-type': 'application/json' };
  const docBody = (metadata: string, type = 'awb') => `{"document_type":"${type}","file_base64":"${pdf().toString('base64')}","filename":"guia.pdf","metadata":${metadata}}`;
  const documentsOf = async (token: string) => (await t.call('GET', '/v1/transport/documents', { token })).body.meta.total;
  const tiny = 'Must be 0 or at least 1e-130 in magnitude: smaller numbers cannot be stored.';

  it('refuses numbers too small to store (1e-131, 5e-324) with 422 naming the path, writing no order, product or document (they were 500: DynamoDB underflow)', async () => {
    const { token } = await merchant(t, 'Tiny Numbers');
    for (const n of ['1e-131', '5e-324', '-2.5e-300']) {
      const order = await t.call('POST', '/v1/orders', { token, raw: JSON.stringify(webOrder({ items: [{ sku: 'TINY-1', name: 'Taza', quantity: 1, price: 1, weight: '<n>' }] })).replace('"<n>"', n), headers: json });
      expect(order.status, n).toBe(422);
      expect(order.body.errors).toEqual({ 'items.0.weight': [tiny] });
      const doc = await t.call('POST', '/v1/transport/documents/upload', { token, raw: docBody(`{"x":{"y":${n}}}`), headers: json });
      expect(doc.status, n).toBe(422);
      expect(doc.body.errors).toEqual({ 'metadata.x.y': [tiny] });
      const declared = await t.call('POST', '/v1/transport/documents/upload-url', { token, raw: `{"document_type":"awb","filename":"g.pdf","file_size":10,"checksum":"sha256:${'0'.repeat(64)}","metadata":{"x":${n}}}`, headers: json });
      expect(declared.status, n).toBe(422);
      expect(declared.body.errors).toEqual({ 'metadata.x': [tiny] });
    }
    expect((await t.call('GET', '/v1/orders', { token })).body.data.orders).toEqual([]);
    expect((await t.call('GET', '/v1/inventory', { token })).body.data.products).toEqual([]);
    expect(await documentsOf(token)).toBe(0);
    const zero = await t.call('POST', '/v1/transport/documents/upload', { token, raw: docBody('{"x":0,"y":1e-130,"z":-0}'), headers: json });
    expect(zero.status).toBe(201);
  });

  it('refuses an empty key in document metadata, JSON or multipart, with 422 naming the object that holds it, storing nothing (it was 500: empty attribute name)', async () => {
    const { token } = await t.account('Empty Keys');
    const res = await t.call('POST', '/v1/transport/documents/upload', { token, raw: docBody('{"a":{"":1}}'), headers: json });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ 'metadata.a': ['Must not have an empty key.'] });
    const form = await multipart({ document_type: 'awb', metadata: '{"":"x"}' }, { name: 'guia.pdf', data: pdf(), type: 'application/pdf' });
    const multi = await t.call('POST', '/v1/transport/documents/upload', { token, raw: form.body, headers: { 'content-type': form.contentType } });
    expect(multi.status).toBe(422);
    expect(multi.body.errors).toEqual({ metadata: ['Must not have an empty key.'] });
    expect(await documentsOf(token)).toBe(0);
  });

  it('takes a +json content type on document uploads and supersedes, as every other JSON route does (it was 415)', async () => {
    const { token } = await t.account('Vendor Json');
    const res = await t.call('POST', '/v1/transport/documents/upload', { token, raw: docBody('{}'), headers: { 'content-type': 'application/vnd.despacho+json; charset=utf-8' } });
    expect(res.status).toBe(201);
    const next = await t.call('POST', `/v1/transport/documents/${res.body.data.id}/supersede`, {
      token,
      raw: JSON.stringify({ file_base64: pdf('v2').toString('base64'), filename: 'guia-2.pdf' }),
      headers: { 'content-type': 'application/problem+json' },
    });
    expect(next.status).toBe(201);
  });

  it('refuses a chunk whose items cannot add up to total_items before storing anything: no upload, payload or queued write is left', async () => {
    const { token } = await t.account('Impossible Chunks');
    await t.intake();
    const base = randomUUID();
    const only = await t.call('POST', submitPath(), { token, body: manifest(2, { _chunk_metadata: { chunk_number: 1, total_chunks: 1, base_idempotency_key: base, total_items: 5 } }) });
    expect(only.status).toBe(422);
    expect(only.body.errors['_chunk_metadata.total_items'][0]).toMatch(/^This is the last missing chunk/);
    expect((await t.call('GET', `/v1/couriers/manifests/chunks/${base}/status`, { token })).status).toBe(404);
    // A second chunk that cannot fit what the first left room for is refused the same way.
    const other = randomUUID();
    const first = await t.call('POST', submitPath(), { token, body: manifest(2, { _chunk_metadata: { chunk_number: 1, total_chunks: 2, base_idempotency_key: other, total_items: 3 } }) });
    expect(first.status).toBe(202);
    const second = await t.call('POST', submitPath(), { token, body: manifest(2, { mawbNumber: first.body.manifest_number, _chunk_metadata: { chunk_number: 2, total_chunks: 2, base_idempotency_key: other, total_items: 3 } }) });
    expect(second.status).toBe(422);
    // One write was queued, the first chunk's; the refused one queued none.
    expect(await t.twin.jobs.runDue(['manifestIntake'])).toBe(1);
    const status = await t.call('GET', `/v1/couriers/manifests/chunks/${other}/status`, { token });
    expect(status.body.data).toMatchObject({ received_items: 2, progress: { missing_chunks: [2] } });
  });

  it("answers a request line and headers over Node's 16 KiB with 431 and the error body (the twin answered a bare 431)", async () => {
    const res = await t.call('GET', `/v1/orders/${'ñ'.repeat(10_000)}`);
    expect(res.status).toBe(431);
    expect(res.body).toEqual({ success: false, error: 'headers_too_large', message: 'The request line and headers are larger than 16 KiB.' });
  });
});
