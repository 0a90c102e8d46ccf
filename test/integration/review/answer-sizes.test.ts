/**
 * The lists of products at their largest (issue 41): products whose texts are as long as the
 * manifest schema allows, in a 3-byte script, listed a full page at a time, stay under the 6 MB an
 * answer may carry. Measured as an entry's bytes (a page of two less a page of one) times the
 * page's maximum, plus the page of one.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useTwin } from '#support/twin';
import { item, manifest, submitForBatch } from '#support/manifests';
import { reviewPerPage } from '#http/review/schemas';
import { productsPerPage } from '#http/manifests/alternative/schemas';

const t = useTwin();
let batchId: string;
let broker: { token: string };

beforeAll(async () => {
  const partner = await t.account('Long Texts Couriers');
  broker = await t.account('Long Texts Broker', { kind: 'broker' });
  const w = (n: number) => '€'.repeat(n);
  const longest = { consigneeName: w(200), consigneeAddress: w(255), consigneeCity: w(100), consigneeProvince: w(100), itemName: w(255), itemDescription: w(1000), Category: w(100), customerName: w(200), shipperName: w(200) };
  const links = { productLink: `https://shop.example/${'a'.repeat(470)}`, imageLink: `https://shop.example/${'b'.repeat(470)}` };
  const items = Array.from({ length: 4 }, (_, i) => item(i + 1, { ...longest, ...links, hsCode: undefined, fobValueUsd: 900 + i, consigneeIdType: 'CUIT', consigneeIdNumber: '30703088534' }));
  batchId = await submitForBatch(t, partner.token, manifest(0, { items }));
  await t.settle();
}, 120_000);

/** The bytes of a page of `perPage` at `path`. */
async function bytesOf(path: string, perPage: number): Promise<number> {
  const res = await fetch(`${t.twin.apiUrl}${path}${path.includes('?') ? '&' : '?'}per_page=${perPage}`, { headers: { authorization: `Bearer ${broker.token}` } });
  expect(res.status, path).toBe(200);
  return Buffer.byteLength(await res.text());
}

describe('a full page of the longest products', () => {
  it.each([
    ['the review queue', () => `/v1/couriers/manifests/${batchId}/review`, reviewPerPage.max],
    ['the products of a manifest', () => `/v1/manifests/${batchId}`, productsPerPage.max],
  ])('%s stays under 5 MB', async (_name, path, max) => {
    const one = await bytesOf(path(), 1);
    const entry = (await bytesOf(path(), 2)) - one;
    expect(entry).toBeGreaterThan(3_000);
    expect(one + entry * (max - 1)).toBeLessThan(5 * 1024 * 1024);
  });
});
