import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTwin } from '#support/twin';
import { items, submitPath } from '#support/manifests';
import { blobs } from '#infra/blobs';

const t = useTwin();

/** A GET as raw bytes: no client decoding, so what crossed the wire is what is measured. */
function get(url: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

describe('manifest downloads: gzip when accepted, and ndjson', () => {
  let token: string;
  let batchId: string;
  let runId: string;
  const download = (format: string, acceptEncoding?: string) =>
    get(`${t.twin.apiUrl}/v1/couriers/manifests/${batchId}/download?format=${format}`, { authorization: `Bearer ${token}`, ...(acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding }) });
  const stored = () => {
    const dir = join(t.dataDir, 'blobs', 'exports', batchId, runId);
    return Object.fromEntries(readdirSync(dir).filter((f) => /^products/.test(f) && !f.endsWith('.meta.json')).map((f) => [f, statSync(join(dir, f)).mtimeMs]));
  };

  beforeAll(async () => {
    ({ token } = await t.account('Encoding Couriers'));
    const key = randomUUID();
    const res = await t.call('POST', submitPath(), { token, body: { mawbNumber: `MAWB-${randomUUID().slice(0, 8)}`, items: items(40) }, headers: { 'idempotency-key': key } });
    expect(res.status).toBe(202);
    await t.settle();
    batchId = (await t.call('GET', `/v1/couriers/default/webhook/${key}/status`, { token })).body.batch_id;
    const status = await t.call('GET', `/v1/couriers/manifests/${batchId}/pipeline-status`, { token });
    expect(status.body.data.overall_progress).toBe(100);
    runId = status.body.data.run_id;
  }, 60_000);

  it('answers gzip, with Content-Encoding and Vary, to a client that accepts it: the same JSON, smaller', async () => {
    const plain = await download('json');
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toMatch(/Accept-Encoding/i);
    for (const accept of ['gzip', 'gzip, deflate, br', 'br;q=1, gzip;q=0.5', '*']) {
      const zipped = await download('json', accept);
      expect(zipped.status, accept).toBe(200);
      expect(zipped.headers['content-encoding'], accept).toBe('gzip');
      expect(zipped.headers['content-type']).toBe('application/json');
      expect(zipped.headers.vary).toMatch(/Accept-Encoding/i);
      expect(gunzipSync(zipped.body).equals(plain.body), accept).toBe(true);
      expect(zipped.body.length).toBeLessThan(plain.body.length / 4);
    }
    for (const accept of ['identity', 'gzip;q=0', 'br']) expect((await download('json', accept)).headers['content-encoding'], accept).toBeUndefined();
  });

  it('answers ndjson, one product per line in the JSON\'s order, plain or compressed', async () => {
    const json = JSON.parse((await download('json')).body.toString('utf8')) as { data: { products: { item_key: string }[] } };
    const res = await download('ndjson');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/x-ndjson');
    const text = res.body.toString('utf8');
    expect(text.endsWith('\n')).toBe(true);
    const lines = text.slice(0, -1).split('\n').map((l) => JSON.parse(l));
    expect(lines).toEqual(json.data.products);
    expect(lines).toHaveLength(40);
    const zipped = await download('ndjson', 'gzip');
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(zipped.body).toString('utf8')).toBe(text);
  });

  it('compresses the csv (still an attachment) and never the workbook', async () => {
    const csv = await download('csv', 'gzip');
    expect(csv.headers).toMatchObject({ 'content-encoding': 'gzip', 'content-type': 'text/csv; charset=utf-8' });
    expect(csv.headers['content-disposition']).toMatch(/\.csv/);
    expect(gunzipSync(csv.body).equals((await download('csv')).body)).toBe(true);
    const xlsx = await download('xlsx', 'gzip');
    expect(xlsx.status).toBe(200);
    expect(xlsx.headers['content-encoding']).toBeUndefined();
    expect(xlsx.body.subarray(0, 2).toString()).toBe('PK');
  });

  it('stores each compressed copy once, at finish, beside the plain file', async () => {
    const files = stored();
    expect(Object.keys(files).sort()).toEqual(
      [expect.stringMatching(/^products-[0-9a-f]{16}\.json$/), expect.stringMatching(/^products-[0-9a-f]{16}\.json\.gz$/), 'products.csv', 'products.csv.gz', 'products.ndjson', 'products.ndjson.gz', 'products.xlsx'].sort(),
    );
    for (const format of ['json', 'ndjson', 'csv']) await download(format, 'gzip');
    expect(stored()).toEqual(files);
  });

  it('serves a stored compressed file by signed URL with its Content-Type and Content-Encoding, the encoding under the signature', async () => {
    const gz = Object.keys(stored()).find((f) => f.endsWith('.json.gz'))!;
    const key = `exports/${batchId}/${runId}/${gz}`;
    const url = await blobs().downloadUrl(key, { expiresInSeconds: 60, fileName: 'm.json', contentType: 'application/json', contentEncoding: 'gzip' });
    const res = await get(url, {});
    expect(res.status).toBe(200);
    expect(res.headers).toMatchObject({ 'content-encoding': 'gzip', 'content-type': 'application/json' });
    expect(JSON.parse(gunzipSync(res.body).toString('utf8')).data.products).toHaveLength(40);
    // The file's own metadata says gzip too, as S3's object metadata would.
    const bare = await get(await blobs().downloadUrl(key, { expiresInSeconds: 60 }), {});
    expect(bare.headers['content-encoding']).toBe('gzip');
    const tampered = new URL(url);
    tampered.searchParams.set('enc', 'br');
    expect((await get(tampered.href, {})).status).toBe(403);
  });

  it('refuses an unknown format naming it', async () => {
    const res = await t.call('GET', `/v1/couriers/manifests/${batchId}/download?format=ndjson.gz`, { token });
    expect(res.status).toBe(422);
    expect(res.body.errors).toHaveProperty('format');
  });
});
