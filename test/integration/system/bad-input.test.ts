import { describe, expect, it } from 'vitest';
import { useTwin } from '../../support/twin';

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
    for (const res of [await t.call('GET', '/health', { token: null }), await t.call('GET', '/v1/me', { token: null }), await t.call('GET', '/v1/none')]) {
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
    const { routes } = await import('../../../lambdas/catalog');
    const { fullPath } = await import('../../../lambdas/routing');
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
