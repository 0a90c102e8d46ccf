import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { DynamoDBClient, ScanCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { useTwin } from '#support/twin';
import { freshCuil, item, submitPath } from '#support/manifests';
import { useEvents, type DomainEvent } from '#infra/events';
import { quotaYear } from '#core/customs/regime-rules';
import { quotaOf } from '#infra/entities/quota';

/**
 * 10,000-item manifests whose every item is its own AWB and all name ONE consignee: the web-services
 * stage must not take a round per AWB of that consignee, and its alert must not become one event
 * too big for the bus or for a table item.
 *
 * Each manifest goes through the service's real path (the courier route, intake, the pipeline) one
 * step a test: intake writes its items, then the pipeline runs it to completion, then the tests on
 * its results read what it left. A step's test runs the steps before it when they have not run (a
 * test run alone with -t), so every test stands alone; in file order each step runs once.
 */
const t = useTwin();
/** Every event published in this file: the pipeline's step publishes them, a later test reads them (by batch id). */
const seen: DomainEvent[] = [];
beforeAll(() => {
  useEvents({ publish: async (events) => (seen.push(...events), t.twin.jobs.publish(events)) });
});

const size = 10_000;
const timeout = 300_000;

/** `size` small valid items (spec 2.5), one AWB each, all for the consignee `tax`. */
const oneConsignee = (tax: { consigneeIdType?: string; consigneeIdNumber?: string }) =>
  Array.from({ length: size }, (_, k) =>
    item(k + 1, { consigneeAddress: undefined, consigneeCity: undefined, consigneeProvince: undefined, consigneePostalCode: undefined, consigneeEmail: undefined, consigneeIdType: undefined, consigneeIdNumber: undefined, ...tax }),
  );

/**
 * One manifest of `size` items for the consignee `tax`, in two steps run once each: `written`
 * submits it (202) and lets intake write every item; `processed` then runs the pipeline (and what
 * it queues) until nothing is due and answers the completed batch's products.
 */
function manifestOf(account: string, tax: () => { consigneeIdType?: string; consigneeIdNumber?: string }) {
  let written: Promise<{ token: string; key: string }> | undefined;
  let processed: Promise<{ token: string; batchId: string; products: Product[] }> | undefined;
  const steps = {
    written: () =>
      (written ??= (async () => {
        const { token } = await t.account(account);
        const key = randomUUID();
        const res = await t.call('POST', submitPath(), { token, body: { mawbNumber: `MAWB-${key.slice(0, 8)}`, items: oneConsignee(tax()) }, headers: { 'idempotency-key': key } });
        expect(res.status).toBe(202);
        await t.intake();
        const status = await t.call('GET', `/v1/couriers/default/webhook/${key}/status`, { token });
        expect(status.body).toMatchObject({ items_count: size, decisions: { create: size }, intake: { items_received: size, items_written: size } });
        return { token, key };
      })()),
    processed: () =>
      (processed ??= (async () => {
        const { token, key } = await steps.written();
        await t.settle();
        const batchId = (await t.call('GET', `/v1/couriers/default/webhook/${key}/status`, { token })).body.batch_id as string;
        return { token, batchId, products: await completedProducts(token, batchId) };
      })()),
  };
  return steps;
}

interface Product {
  awb_number: string;
  item_key: string;
  regime: string;
  quota: number | null;
  tax_id_valid: boolean | null;
}

/** The batch is complete at 100% and its JSON download (fetch follows the redirect to storage a big one answers) holds every item once. */
async function completedProducts(token: string, batchId: string): Promise<Product[]> {
  const status = await t.call('GET', `/v1/couriers/manifests/${batchId}/pipeline-status`, { token });
  expect(status.body.data).toMatchObject({ status: 'completed', overall_progress: 100 });
  const res = await t.call('GET', `/v1/couriers/manifests/${batchId}/download?format=json`, { token });
  expect(res.status).toBe(200);
  const products = res.body.data.products as Product[];
  expect(res.body.data.total_products).toBe(size);
  expect(new Set(products.map((p) => p.item_key)).size).toBe(size);
  expect(products).toHaveLength(size);
  return products;
}

interface AlertAwb {
  awb_number: string;
  tax_id: string | null;
  reason: string;
}

/**
 * The batch's invalid_cuit_detected events: parts of at most 500 AWBs, numbered 1..parts, each
 * under EventBridge's 256 KB per entry, each AWB in one part.
 */
function flaggedAwbs(batchId: string): AlertAwb[] {
  const alerts = seen.filter((e) => e.type === 'manifest.invalid_cuit_detected' && (e.data as { batch_id: string }).batch_id === batchId);
  for (const e of alerts) expect(Buffer.byteLength(JSON.stringify(e))).toBeLessThan(256 * 1024);
  const parts = alerts.map((e) => e.data as { awbs: AlertAwb[]; part: number; parts: number; total_awbs: number });
  if (!parts.length) return [];
  const total = parts[0].total_awbs;
  expect(parts.map((p) => p.part).sort((a, b) => a - b)).toEqual(Array.from({ length: Math.ceil(total / 500) }, (_, k) => k + 1));
  for (const p of parts) {
    expect(p).toMatchObject({ parts: parts.length, total_awbs: total });
    expect(p.awbs.length).toBeGreaterThan(0);
    expect(p.awbs.length).toBeLessThanOrEqual(500);
  }
  const awbs = parts.flatMap((p) => p.awbs);
  expect(awbs).toHaveLength(total);
  expect(new Set(awbs.map((a) => a.awb_number)).size).toBe(total);
  return awbs;
}

/** A manifest's two steps, each a test: intake writes its items, then the pipeline completes them. */
function steps(manifest: ReturnType<typeof manifestOf>, what: string) {
  it(`writes the 10,000 items ${what}`, { timeout }, async () => {
    await manifest.written();
  });

  it('completes them, every item once in the download', { timeout }, async () => {
    await manifest.processed();
  });
}

const count = (products: Product[], regime: string) => products.filter((p) => p.regime === regime).length;

describe('10,000-item manifests of one consignee complete', () => {
  describe('one person', () => {
    const cuil = freshCuil();
    const manifest = manifestOf('Scale Person Couriers', () => ({ consigneeIdType: 'CUIL', consigneeIdNumber: cuil }));

    steps(manifest, 'of one person');

    it('gives one person 5 personal shipments and clears the other 9,995 as commercial, flagged', { timeout }, async () => {
      const { batchId, products } = await manifest.processed();
      const personal = products.filter((p) => p.regime === 'P');
      expect(personal.map((p) => p.quota).sort((a, b) => a! - b!)).toEqual([0, 1, 2, 3, 4]);
      expect(count(products, 'C')).toBe(size - 5);
      expect(products.filter((p) => p.regime === 'C').every((p) => p.quota === 0 && p.tax_id_valid === true)).toBe(true);
      expect(await quotaOf(cuil, quotaYear(new Date()))).toEqual({ used: 5, remaining: 0, records: 5 });
      const flagged = flaggedAwbs(batchId);
      expect(new Set(flagged.map((a) => a.awb_number))).toEqual(new Set(products.filter((p) => p.regime === 'C').map((p) => p.awb_number)));
      expect(flagged.every((a) => a.tax_id === cuil && /^quota used up \(0 of 5 personal shipments left in \d{4}\)$/.test(a.reason))).toBe(true);
    });

    it('leaves no item over 100 KB in the table after the one-person manifest', { timeout }, async () => {
      await manifest.processed();
      const client = new DynamoDBClient({ endpoint: inject('dynamoEndpoint'), region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
      const largest = { bytes: 0, key: '' };
      // A parallel scan in 4 segments (every item in exactly one), pages of at most 1,000 items:
      // DynamoDB Local answers the segments side by side. Its 20,000 items here, one after another
      // on a loaded machine (2026-12-07): one scan 18-24 s while DynamoDB Local was new, 4 s later;
      // four segments 4.2 s with the Limit, 6.4 s without.
      const segments = 4;
      const scanned = await Promise.all(
        Array.from({ length: segments }, async (_, segment) => {
          let n = 0;
          let start: Record<string, AttributeValue> | undefined;
          do {
            const page = await client.send(new ScanCommand({ TableName: t.tableName, Segment: segment, TotalSegments: segments, Limit: 1000, ExclusiveStartKey: start }));
            for (const it of page.Items ?? []) {
              // The JSON of the raw attribute values: a little over DynamoDB's own measure of the item.
              const bytes = Buffer.byteLength(JSON.stringify(it));
              if (bytes > largest.bytes) Object.assign(largest, { bytes, key: `${it.pk?.S} ${it.sk?.S}` });
            }
            n += page.Items?.length ?? 0;
            start = page.LastEvaluatedKey;
          } while (start);
          return n;
        }),
      );
      expect(scanned.reduce((a, b) => a + b, 0)).toBeGreaterThan(size);
      expect(largest.bytes, `largest item: ${largest.key}`).toBeLessThan(100 * 1024);
    });
  });

  describe('one company', () => {
    const manifest = manifestOf('Scale Company Couriers', () => ({ consigneeIdType: 'CUIT', consigneeIdNumber: '30703088534' }));

    steps(manifest, 'of one company');

    it('clears every shipment of one company as commercial, with no quota and no alert', { timeout }, async () => {
      const { batchId, products } = await manifest.processed();
      expect(count(products, 'C')).toBe(size);
      expect(products.every((p) => p.quota === null && p.tax_id_valid === true)).toBe(true);
      expect(flaggedAwbs(batchId)).toEqual([]);
    });
  });

  describe('no tax id', () => {
    const manifest = manifestOf('Scale No Tax Id Couriers', () => ({}));

    steps(manifest, 'without a tax id');

    it('keeps every shipment without a tax id personal, takes no quota and flags all 10,000', { timeout }, async () => {
      const { batchId, products } = await manifest.processed();
      expect(count(products, 'P')).toBe(size);
      expect(products.every((p) => p.quota === null && p.tax_id_valid === false)).toBe(true);
      const flagged = flaggedAwbs(batchId);
      expect(new Set(flagged.map((a) => a.awb_number))).toEqual(new Set(products.map((p) => p.awb_number)));
      expect(flagged.every((a) => a.tax_id === null && a.reason === 'no tax id')).toBe(true);
    });
  });

  describe('an invalid tax id', () => {
    const manifest = manifestOf('Scale Invalid Tax Id Couriers', () => ({ consigneeIdType: 'CUIL', consigneeIdNumber: '20123456785' }));

    steps(manifest, 'with an invalid tax id');

    it('keeps every shipment with an invalid tax id personal, takes no quota and flags all 10,000 as invalid', { timeout }, async () => {
      const { batchId, products } = await manifest.processed();
      expect(count(products, 'P')).toBe(size);
      expect(products.every((p) => p.quota === null && p.tax_id_valid === false)).toBe(true);
      const flagged = flaggedAwbs(batchId);
      expect(new Set(flagged.map((a) => a.awb_number))).toEqual(new Set(products.map((p) => p.awb_number)));
      expect(flagged.every((a) => a.reason === 'invalid tax id: check digit of CUIL 20-12345678-5 is 5, expected 6')).toBe(true);
    });
  });
});
