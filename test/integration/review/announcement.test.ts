/**
 * The announcement of a broker's review (issue 42): one event per fact. The processing run sends
 * `manifest.processed` once; the close of a reviewed batch sends `manifest.reviewed` with the
 * revision and the products the review changed (the newest 20, and the route to all of them),
 * never a second `manifest.processed`. The deliveries are held to openapi.json by the receiver.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useTwin } from '#support/twin';
import { useReceiver } from '#support/receiver';
import { freshCuil, item, manifest, submitForBatch } from '#support/manifests';
import { useEvents, type DomainEvent } from '#infra/events';
import { reviewedProductsShown } from '#core/webhooks/events';

const t = useTwin();
const receiver = useReceiver();
const seen: DomainEvent[] = [];

let partner: { token: string };
let broker: { token: string };
let batchId: string;
const gifts = 22;

beforeAll(async () => {
  useEvents({ publish: async (events) => (seen.push(...events), t.twin.jobs.publish(events)) });
  partner = await t.account('Announced Couriers');
  broker = await t.account('Announcing Broker', { kind: 'broker' });
  const sub = await t.call('POST', '/webhook-subscriptions', { token: partner.token, body: { endpoint_url: receiver.url, events: ['manifest.processed', 'manifest.reviewed'] } });
  expect(sub.status).toBe(201);
  const items = Array.from({ length: gifts }, (_, k) => item(k + 1, { itemDescription: 'Regalo sorpresa', hsCode: undefined, fobValueUsd: 40 + k, consigneeIdNumber: freshCuil('20') }));
  batchId = await submitForBatch(t, partner.token, manifest(0, { items }));
  await t.settle();
}, 90_000);

const of = (type: string) => seen.filter((e) => e.type === type);
const delivered = (type: string) => receiver.received.map((r) => JSON.parse(r.body)).filter((e) => e.type === type);

describe('the events of a processed and reviewed manifest', () => {
  it('sends manifest.processed once for the processing run, with its summary', () => {
    expect(of('manifest.processed')).toHaveLength(1);
    expect(of('manifest.processed')[0].data).toMatchObject({ batch_id: batchId, summary: { total_products: gifts } });
    expect(delivered('manifest.processed')).toHaveLength(1);
  });

  it('sends manifest.processing_completed with the run it was, not the summary again', async () => {
    const status = await t.call('GET', `/v1/couriers/manifests/${batchId}/pipeline-status`, { token: partner.token });
    const [completed] = of('manifest.processing_completed');
    expect(completed.data).toEqual({
      manifest_number: expect.any(String),
      batch_id: batchId,
      mawb_number: expect.any(String),
      run_id: status.body.data.run_id,
      covers_all: true,
      pages: 1,
      started_at: expect.any(String),
      finished_at: expect.any(String),
    });
  });

  it('announces a group decision of 22 products at the close as manifest.reviewed: the newest 20, that there are more, and the route that lists them all', async () => {
    const groups = await t.call('GET', `/v1/couriers/manifests/${batchId}/review/groups`, { token: broker.token });
    const group = groups.body.data.find((g: { products: number }) => g.products === gifts);
    expect(group).toBeDefined();
    const decided = await t.call('PUT', `/v1/couriers/manifests/${batchId}/review/groups/${group.group_id}/classification`, {
      token: broker.token,
      body: { ncm_code: '9503.00.99', reason: 'Juguetes surtidos, según factura' },
    });
    expect(decided.status).toBe(200);
    expect((await t.call('POST', `/v1/couriers/batches/${batchId}/close`, { token: broker.token })).status).toBe(200);
    await t.settle();

    expect(of('manifest.processed')).toHaveLength(1);
    const [reviewed] = of('manifest.reviewed');
    expect(reviewed.data).toMatchObject({
      batch_id: batchId,
      revision: 1,
      previous_revision: 0,
      decisions: 1,
      more_products: true,
      decisions_path: `/api/v1/couriers/manifests/${batchId}/review/decisions`,
      closed_by: expect.any(String),
      summary: { total_products: gifts },
    });
    const products = (reviewed.data as { products: { ncm_code: string; revision: number }[] }).products;
    expect(products).toHaveLength(reviewedProductsShown);
    expect(products.every((p) => p.ncm_code === '9503.00.99' && p.revision === 1)).toBe(true);
    expect(delivered('manifest.reviewed')).toHaveLength(1);

    const all = await t.call('GET', `${(reviewed.data as { decisions_path: string }).decisions_path.replace(/^\/api/, '')}?per_page=100`, { token: partner.token });
    expect(all.status).toBe(200);
    expect(all.body.data).toHaveLength(gifts);
  });

  it('closing again announces nothing', async () => {
    expect((await t.call('POST', `/v1/couriers/batches/${batchId}/close`, { token: broker.token })).status).toBe(200);
    await t.settle();
    expect(of('manifest.reviewed')).toHaveLength(1);
  });

  it('after a reopen, one more correction and a close, announces only what the new review changed', async () => {
    expect((await t.call('POST', `/v1/couriers/batches/${batchId}/reopen`, { token: broker.token })).status).toBe(200);
    const fixed = await t.call('PUT', `/v1/couriers/manifests/${batchId}/products/AWB0000001/classification`, {
      token: broker.token,
      body: { ncm_code: '4202.92.00', reason: 'A backpack, per the photo' },
    });
    expect(fixed.status).toBe(200);
    expect((await t.call('POST', `/v1/couriers/batches/${batchId}/close`, { token: broker.token })).status).toBe(200);
    await t.settle();

    const second = of('manifest.reviewed')[1];
    expect(second.data).toMatchObject({ revision: 2, previous_revision: 1, decisions: 1, more_products: false });
    expect((second.data as { products: unknown[] }).products).toEqual([
      expect.objectContaining({ revision: 2, awb_number: 'AWB0000001', ncm_code_before: '9503.00.99', ncm_code: '4202.92.00', reason: 'A backpack, per the photo' }),
    ]);
    expect(of('manifest.processed')).toHaveLength(1);
    expect(delivered('manifest.reviewed')).toHaveLength(2);
  });
});
