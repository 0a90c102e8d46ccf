/**
 * A broker's decision that changes only the reason (issue 41): the same code, so the same duties,
 * taxes and channel. It is recorded as a decision and written into the results' index, not as a
 * copy of the results' parts (2,000 products, 2-4 MB each); past `maxIndexReviews` such decisions
 * the part is copied with them put on, so the index stays small.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTwin } from '#support/twin';
import { item, manifest, submitForBatch } from '#support/manifests';
import { maxIndexReviews } from '#services/pipeline/results-store';
import { getBatch } from '#infra/entities/manifests';

const t = useTwin();
const company = { consigneeIdType: 'CUIT', consigneeIdNumber: '30703088534' };
const size = maxIndexReviews + 3;

let broker: { token: string };
let partner: { token: string };
let batchId: string;

beforeAll(async () => {
  partner = await t.account('Reason Couriers');
  broker = await t.account('Reason Broker', { kind: 'broker' });
  batchId = await submitForBatch(
    t,
    partner.token,
    manifest(0, { items: Array.from({ length: size }, (_, i) => item(i + 1, { itemDescription: 'Regalo sorpresa', hsCode: undefined, fobValueUsd: 40, ...company })) }),
  );
  await t.settle();
  const groups = await t.call('GET', `/v1/couriers/manifests/${batchId}/review/groups`, { token: broker.token });
  const decided = await t.call('PUT', `/v1/couriers/manifests/${batchId}/review/groups/${groups.body.data[0].group_id}/classification`, {
    token: broker.token,
    body: { ncm_code: '9503.00.99', reason: 'Juguetes surtidos' },
  });
  expect(decided.body.data.changed).toBe(size);
}, 120_000);

const awb = (i: number) => `AWB${String(i).padStart(7, '0')}`;
const correct = (i: number, body: Record<string, string>) => t.call('PUT', `/v1/couriers/manifests/${batchId}/products/${awb(i)}/classification`, { token: broker.token, body });
/** The files a run of the batch's results wrote (its folder under the twin's blobs). */
const filesOf = (runId: string) =>
  readdirSync(join(t.dataDir, 'blobs', 'exports', batchId, runId, 'results'))
    .filter((f) => !f.endsWith('.meta.json'))
    .sort();
const download = async () => (await t.call('GET', `/v1/couriers/manifests/${batchId}/download`, { token: partner.token })).body.data;

describe('a decision that changes only the reason', () => {
  it('is recorded as a decision and writes the index only, and every reader sees the new reason', async () => {
    const before = await download();
    const res = await correct(1, { ncm_code: '9503.00.99', reason: 'Muñecas de plástico, según la foto' });
    expect(res.status).toBe(200);
    expect(res.body.data.product.review).toMatchObject({ reason: 'Muñecas de plástico, según la foto', ncm_code: '9503.00.99' });

    const batch = (await getBatch(batchId))!;
    expect(filesOf(batch.finishedRunId!)).toEqual(['index.json']);
    const after = await download();
    const mine = after.products.find((p: { awb_number: string }) => p.awb_number === awb(1));
    expect(mine.review.reason).toBe('Muñecas de plástico, según la foto');
    expect(mine.classification_evidence).toContain('Muñecas de plástico, según la foto');
    // The same figures: nothing but the reason changed.
    const old = before.products.find((p: { awb_number: string }) => p.awb_number === awb(1));
    expect({ ...mine, review: undefined, classification_evidence: undefined }).toEqual({ ...old, review: undefined, classification_evidence: undefined });
    expect(after.manifest.summary).toEqual(before.manifest.summary);

    const log = await t.call('GET', `/v1/couriers/manifests/${batchId}/review/decisions?per_page=1`, { token: broker.token });
    expect(log.body.data[0]).toMatchObject({ awb_number: awb(1), ncm_code: '9503.00.99', reason: 'Muñecas de plástico, según la foto' });
  });

  it('changes nothing when sent again (a retry)', async () => {
    const revision = (await getBatch(batchId))!.reviewRevision;
    const again = await correct(1, { ncm_code: '9503.00.99', reason: 'Muñecas de plástico, según la foto' });
    expect(again.status).toBe(200);
    expect(again.body.message).toMatch(/already recorded/);
    expect((await getBatch(batchId))!.reviewRevision).toBe(revision);
  });

  it('keeps the new reason when a later decision changes a code and copies the part', async () => {
    const res = await correct(2, { ncm_code: '4202.92.00', reason: 'Mochilas' });
    expect(res.status).toBe(200);
    const batch = (await getBatch(batchId))!;
    expect(filesOf(batch.finishedRunId!)).toEqual(['hashes-00000.json', 'index.json', 'products-00000.ndjson']);
    const products = (await download()).products;
    expect(products.find((p: { awb_number: string }) => p.awb_number === awb(1)).review.reason).toBe('Muñecas de plástico, según la foto');
    expect(products.find((p: { awb_number: string }) => p.awb_number === awb(2)).ncm_code).toBe('4202.92.00');
  });

  it(`copies the part once the index holds ${maxIndexReviews} such decisions, so no index grows with them`, async () => {
    for (let i = 3; i < 3 + maxIndexReviews; i++) expect((await correct(i, { ncm_code: '9503.00.99', reason: `Juguete ${i}` })).status).toBe(200);
    let batch = (await getBatch(batchId))!;
    expect(filesOf(batch.finishedRunId!)).toEqual(['index.json']);
    const past = await correct(size, { ncm_code: '9503.00.99', reason: 'Juguete, el último' });
    expect(past.status).toBe(200);
    batch = (await getBatch(batchId))!;
    expect(filesOf(batch.finishedRunId!)).toEqual(['hashes-00000.json', 'index.json', 'products-00000.ndjson']);
    const products = (await download()).products;
    expect(products.find((p: { awb_number: string }) => p.awb_number === awb(3)).review.reason).toBe('Juguete 3');
    expect(products.find((p: { awb_number: string }) => p.awb_number === awb(size)).review.reason).toBe('Juguete, el último');
  }, 120_000);
});
