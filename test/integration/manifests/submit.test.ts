import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useTwin } from '#support/twin';
import { item, manifest, submitPath } from '#support/manifests';
import { manifestSignature } from '#core/manifests/signature';
import { excelSlugs } from '#core/manifests/excel/slugs';

const t = useTwin();

describe('manifest submission', () => {
  it('answers 202 queued with the tracking of spec 4.3', async () => {
    const { token } = await t.account('Submit Couriers');
    const body = manifest(3, { airline: 'LATAM' });
    const key = randomUUID();
    const res = await t.call('POST', submitPath(), { token, body, headers: { 'idempotency-key': key } });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({
      success: true,
      status: 'queued',
      message: expect.any(String),
      idempotency_key: key,
      manifest_number: body.mawbNumber,
      batch_id: null,
      mode: 'create',
      tracking: { manifest_number: body.mawbNumber, batch_id: null, mawb_number: body.mawbNumber, items_count: 3, timestamp: expect.stringMatching(/Z$/) },
    });
  });

  it('uses manifestNumber when sent and generates an idempotency key when none is sent', async () => {
    const { token } = await t.account('Numbered Couriers');
    const res = await t.call('POST', submitPath(), { token, body: manifest(1, { manifestNumber: 'MAN-42' }) });
    expect(res.status).toBe(202);
    expect(res.body.manifest_number).toBe('MAN-42');
    expect(res.body.idempotency_key).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers before writing, and shows the batch only once every item is written', async () => {
    const { token } = await t.account('Batch Couriers');
    const key = randomUUID();
    await t.call('POST', submitPath(), { token, body: manifest(4), headers: { 'idempotency-key': key } });
    const queued = await t.call('GET', `/v1/couriers/default/webhook/${key}/status`, { token });
    expect(queued.body).toMatchObject({ success: true, status: 'queued', idempotency_key: key, batch_id: null, items_count: 4 });
    expect((await t.call('GET', '/v1/couriers/manifests', { token })).body.data).toHaveLength(0);
    await t.intake();
    const status = await t.call('GET', `/v1/couriers/default/webhook/${key}/status`, { token });
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({ success: true, status: 'queued', idempotency_key: key, batch_id: expect.stringMatching(/^BT[0-9A-F]{20}$/) });
    expect(status.body.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?$/);
    const list = await t.call('GET', '/v1/couriers/manifests', { token });
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0]).toMatchObject({ batch_id: status.body.batch_id, status: 'pending', progress: 0, summary: { total_awbs: 4, total_articles: 4 } });
  });

  it('replays the first answer with 200 for the same key and payload', async () => {
    const { token } = await t.account('Replay Couriers');
    const key = randomUUID();
    const body = manifest(2);
    const first = await t.call('POST', submitPath(), { token, body, headers: { 'idempotency-key': key } });
    const again = await t.call('POST', submitPath(), { token, body, headers: { 'idempotency-key': key } });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    await t.intake();
    const list = await t.call('GET', '/v1/couriers/manifests', { token });
    expect(list.body.data).toHaveLength(1);
  });

  it('replays the bytes of the first answer, word for word and in the same key order, before and after the items are written', async () => {
    const { token } = await t.account('Replay Bytes Couriers');
    const key = randomUUID();
    const body = manifest(3, { airline: 'LATAM' });
    const first = await t.call('POST', submitPath(), { token, body, headers: { 'idempotency-key': key } });
    expect(first.status).toBe(202);
    const again = await t.call('POST', submitPath(), { token, body, headers: { 'idempotency-key': key } });
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
    await t.intake();
    const later = await t.call('POST', submitPath(), { token, body, headers: { 'idempotency-key': key } });
    expect(later.text).toBe(first.text);
    expect(later.headers.get('content-type')).toBe(first.headers.get('content-type'));
  });

  it('refuses the same key with another payload with 409', async () => {
    const { token } = await t.account('Conflict Couriers');
    const key = randomUUID();
    await t.call('POST', submitPath(), { token, body: manifest(1), headers: { 'idempotency-key': key } });
    const other = await t.call('POST', submitPath(), { token, body: manifest(2), headers: { 'idempotency-key': key } });
    expect(other.status).toBe(409);
    expect(other.body.success).toBe(false);
  });

  it('creates one batch when the same submission arrives five times at once', async () => {
    const { token } = await t.account('Concurrent Couriers');
    const key = randomUUID();
    const body = manifest(20);
    const answers = await Promise.all(Array.from({ length: 5 }, () => t.call('POST', submitPath(), { token, body, headers: { 'idempotency-key': key } })));
    expect(answers.filter((a) => a.status === 202)).toHaveLength(1);
    for (const a of answers) expect([200, 202]).toContain(a.status);
    await t.intake();
    const list = await t.call('GET', '/v1/couriers/manifests', { token });
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0].summary.total_articles).toBe(20);
  });

  it('refuses a malformed Idempotency-Key with 400', async () => {
    const { token } = await t.account('Bad Key Couriers');
    const res = await t.call('POST', submitPath(), { token, body: manifest(1), headers: { 'idempotency-key': 'not-a-uuid' } });
    expect(res.status).toBe(400);
  });

  it('names every failing field by the path the client sent', async () => {
    const { token } = await t.account('Invalid Couriers');
    const body = manifest(14);
    body.items[12] = item(13, { consigneeEmail: 'not-an-email', fobValueUsd: '12.5' });
    delete (body.items[3] as Record<string, unknown>).originCountry;
    const res = await t.call('POST', submitPath(), { token, body });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(['items.12.consigneeEmail', 'items.12.fobValueUsd', 'items.3.originCountry']);
    const list = await t.call('GET', '/v1/couriers/manifests', { token });
    expect(list.body.data).toHaveLength(0);
  });

  it('lists the first 1,000 failing fields of a large invalid manifest, with how many failed and how to see the rest, in a bounded answer', async () => {
    const { token } = await t.account('Many Invalid Couriers');
    const body = manifest(3000);
    for (const it of body.items as Record<string, unknown>[]) {
      it.consigneeEmail = 'not-an-email';
      it.fobValueUsd = 'twelve';
    }
    const res = await t.call('POST', submitPath(), { token, body });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toHaveLength(1000);
    expect(res.body.errors).toHaveProperty(['items.0.consigneeEmail']);
    expect(res.body.errors_total).toBe(6000);
    expect(res.body.message).toMatch(/first 1000 of 6000 failing fields are listed: correct them and send again/);
    expect(res.text.length).toBeLessThan(200_000);
    // A small one lists every field and no total.
    const small = await t.call('POST', submitPath(), { token, body: manifest(2, { items: [item(1, { fobValueUsd: 'x' })] }) });
    expect(small.status).toBe(422);
    expect(small.body).not.toHaveProperty('errors_total');
    expect((await t.call('GET', '/v1/couriers/manifests', { token })).body.data).toHaveLength(0);
  });

  it('refuses a manifest without items, with a long mawbNumber or a bad country', async () => {
    const { token } = await t.account('Bounds Couriers');
    const res = await t.call('POST', submitPath(), { token, body: { mawbNumber: 'M'.repeat(51), items: [] } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toHaveProperty('mawbNumber');
    expect(res.body.errors).toHaveProperty('items');
    const country = await t.call('POST', submitPath(), { token, body: manifest(1, { items: [item(1, { originCountry: 'XX' })] }) });
    expect(country.body.errors).toHaveProperty(['items.0.originCountry']);
  });

  it('refuses a body that is not JSON, not an object, or sent as text', async () => {
    const { token } = await t.account('Garbage Couriers');
    expect((await t.call('POST', submitPath(), { token, raw: '{"mawbNumber":', headers: { 'content-type': 'application/json' } })).status).toBe(400);
    expect((await t.call('POST', submitPath(), { token, raw: '[1,2]', headers: { 'content-type': 'application/json' } })).status).toBe(422);
    expect((await t.call('POST', submitPath(), { token, raw: 'mawb=1', headers: { 'content-type': 'text/plain' } })).status).toBe(415);
  });

  it('answers 422 naming `default` for an unknown courier slug', async () => {
    const { token } = await t.account('Slug Couriers');
    const res = await t.call('POST', submitPath('acme'), { token, body: manifest(1) });
    expect(res.status).toBe(422);
    expect(res.body.errors.courier[0]).toContain('default');
  });

  it('answers 422 naming `default` for JSON sent to any Excel slug (spec 7.2)', async () => {
    const { token } = await t.account('Json Excel Couriers');
    for (const slug of excelSlugs) {
      const res = await t.call('POST', submitPath(slug), { token, body: manifest(1) });
      expect(res.status, slug).toBe(422);
      expect(res.body).toMatchObject({ success: false, error: 'validation_failed' });
      expect(res.body.message).toContain('`default`');
      expect(res.body.errors.file[0]).toContain('`default`');
    }
  });

  it('answers 413 pointing to chunked mode for a body over 6 MB', async () => {
    const { token } = await t.account('Huge Couriers');
    const res = await t.call('POST', submitPath(), { token, raw: JSON.stringify({ mawbNumber: 'M1', items: [], pad: 'x'.repeat(6_000_001) }), headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(413);
    expect(res.body.message).toContain('chunked mode');
  });

  it('needs a token', async () => {
    expect((await t.call('POST', submitPath(), { token: null, body: manifest(1) })).status).toBe(401);
  });
});

describe('X-Signature', () => {
  it('is checked when the account has a manifest signing secret: missing or wrong -> 401, right -> 202', async () => {
    const { accountId, token } = await t.account('Signed Couriers');
    const secret = (await t.call('POST', `/v1/admin/accounts/${accountId}/signing-secret`)).body.data.secret as string;
    const raw = JSON.stringify(manifest(1));
    const headers = { 'content-type': 'application/json' };
    const missing = await t.call('POST', submitPath(), { token, raw, headers });
    expect(missing.status).toBe(401);
    expect(missing.body.message).toContain('X-Signature');
    const wrong = await t.call('POST', submitPath(), { token, raw, headers: { ...headers, 'x-signature': manifestSignature('another-secret', raw) } });
    expect(wrong.status).toBe(401);
    const tampered = await t.call('POST', submitPath(), { token, raw: raw + ' ', headers: { ...headers, 'x-signature': manifestSignature(secret, raw) } });
    expect(tampered.status).toBe(401);
    const right = await t.call('POST', submitPath(), { token, raw, headers: { ...headers, 'x-signature': manifestSignature(secret, raw) } });
    expect(right.status).toBe(202);
  });

  it('is not needed when the account has no secret', async () => {
    const { token } = await t.account('Unsigned Couriers');
    expect((await t.call('POST', submitPath(), { token, body: manifest(1) })).status).toBe(202);
  });

  it('answers batch-status for 1 to 50 ids, naming each, and 422 outside that range', async () => {
    const { token } = await t.account('Batch Status Couriers');
    const key = randomUUID();
    const body = manifest(1, { manifestNumber: 'BS-1' });
    await t.call('POST', submitPath(), { token, body, headers: { 'idempotency-key': key } });
    await t.intake();
    const res = await t.call('POST', '/v1/couriers/manifests/batch-status', { token, body: { manifests: ['BS-1', 'NOPE'] } });
    expect(res.body.data).toEqual([
      { manifest_id: 'BS-1', batch_id: expect.stringMatching(/^BT/), status: 'pending', progress: 0, can_download: false },
      { manifest_id: 'NOPE', batch_id: null, status: 'not_found', progress: 0, can_download: false },
    ]);
    expect((await t.call('POST', '/v1/couriers/manifests/batch-status', { token, body: { manifests: [] } })).status).toBe(422);
    expect((await t.call('POST', '/v1/couriers/manifests/batch-status', { token, body: { manifests: Array.from({ length: 51 }, (_, i) => `M${i}`) } })).status).toBe(422);
  });

  it('filters the manifest list by status and dates, and refuses a bad date', async () => {
    const { token } = await t.account('Filter Couriers');
    await t.call('POST', submitPath(), { token, body: manifest(1) });
    await t.intake();
    const today = new Date().toISOString().slice(0, 10);
    expect((await t.call('GET', `/v1/couriers/manifests?date_from=${today}&date_to=${today}&status=pending`, { token })).body.data).toHaveLength(1);
    expect((await t.call('GET', '/v1/couriers/manifests?date_to=2000-01-01', { token })).body.data).toHaveLength(0);
    expect((await t.call('GET', '/v1/couriers/manifests?status=completed', { token })).body.data).toHaveLength(0);
    expect((await t.call('GET', '/v1/couriers/manifests?date_from=2026-02-30', { token })).status).toBe(422);
    expect((await t.call('GET', '/v1/couriers/manifests?per_page=101', { token })).status).toBe(422);
  });
});
