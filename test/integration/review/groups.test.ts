/**
 * Group decisions on the twin (issue 40): the review queue grouped by normalized description and
 * declared code, one broker decision for a whole group with each product recorded as its own
 * decision, the counts the inbox reads kept in the batch's summary, and retries that change nothing.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useTwin } from '#support/twin';
import { freshCuil, item, manifest, submitForBatch } from '#support/manifests';
import { getBatch } from '#infra/entities/manifests';
import { blobs, useBlobs } from '#infra/blobs';

const t = useTwin();

let partner: { accountId: number; token: string };
let broker: { token: string };
let batchId: string;

type Group = { group_id: string; description: string; declared_code: string | null; products: number; awbs: number; item_keys: string[] };

beforeAll(async () => {
  partner = await t.account('Group Couriers');
  broker = await t.account('Group Broker', { kind: 'broker' });
  const gift = (i: number, over: Record<string, unknown> = {}) =>
    item(i, { itemDescription: i % 2 ? 'Regalo sorpresa' : '  REGALO, sorpresa! ', hsCode: undefined, fobValueUsd: 40 + i, consigneeIdNumber: freshCuil('20'), ...over });
  batchId = await submitForBatch(
    t,
    partner.token,
    manifest(0, {
      items: [gift(1), gift(2), gift(3), gift(4), gift(5, { hsCode: '9999.99' }), gift(6, { hsCode: '999999' }), item(7, { itemDescription: 'Cotton t-shirt', fobValueUsd: 20 })],
    }),
  );
  await t.settle();
}, 60_000);

const groupsPath = () => `/v1/couriers/manifests/${batchId}/review/groups`;
const decide = (group: string, body: unknown, token = broker.token) => t.call('PUT', `${groupsPath()}/${group}/classification`, { token, body });

async function groups(): Promise<Group[]> {
  const res = await t.call('GET', groupsPath(), { token: broker.token });
  expect(res.status).toBe(200);
  return res.body.data;
}

describe('the review groups', () => {
  it('groups products awaiting review by normalized description and declared code, largest first', async () => {
    const [first, second] = await groups();
    expect(first).toMatchObject({ description: 'Regalo sorpresa', declared_code: null, products: 4, awbs: 4 });
    expect(second).toMatchObject({ products: 2, awbs: 2 });
    expect(second.declared_code?.replace(/\D/g, '')).toBe('999999');
    expect(first.group_id).toMatch(/^[0-9a-f]{16}$/);
  });

  it('counts the products awaiting review and what they pay in the batch summary the inbox reads', async () => {
    const res = await t.call('GET', `/v1/couriers/review/batches?per_page=100`, { token: broker.token });
    expect(res.status).toBe(200);
    const queue = await t.call('GET', `/v1/couriers/manifests/${batchId}/review?per_page=200`, { token: broker.token });
    const waiting = queue.body.data.filter((p: { review?: unknown }) => !p.review).length;
    const { summary } = (await getBatch(batchId))!;
    expect(summary).toBeDefined();
    expect(summary!.review_pending).toBe(waiting);
  });

  it('answers 422 naming the field for a bad NCM or a missing reason, 404 for a group id it never answered, and 403 to a partner', async () => {
    const [first] = await groups();
    // A path id that does not fit its shape names no record: 404, as for any unknown path.
    expect((await decide('not-a-group', { ncm_code: '9503.00.99', reason: 'x' })).status).toBe(404);
    expect((await decide(first.group_id, { ncm_code: '95', reason: 'x' })).body.errors).toHaveProperty('ncm_code');
    expect((await decide(first.group_id, { ncm_code: '9503.00.99' })).body.errors).toHaveProperty('reason');
    expect((await decide(first.group_id, { ncm_code: '9503.00.99', reason: 'x' }, partner.token)).status).toBe(403);
    expect((await decide('0123456789abcdef', { ncm_code: '9503.00.99', reason: 'x' })).status).toBe(404);
  });

  it('decides every product of a group at once, each recorded as its own decision, and a retry changes nothing', async () => {
    const [first] = await groups();
    const body = { ncm_code: '9503.00.99', reason: 'Juguetes surtidos, según factura' };
    const res = await decide(first.group_id, body);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ group_id: first.group_id, ncm_code: '9503.00.99', changed: 4, awbs: 4 });
    expect(typeof res.body.data.customs_duty_moved).toBe('number');

    const decisions = await t.call('GET', `/v1/couriers/manifests/${batchId}/review/decisions?per_page=100`, { token: broker.token });
    const mine = decisions.body.data.filter((d: { group_id?: string }) => d.group_id === first.group_id);
    expect(mine).toHaveLength(4);
    expect(new Set(mine.map((d: { item_key: string }) => d.item_key)).size).toBe(4);
    for (const d of mine) expect(d).toMatchObject({ ncm_code: '9503.00.99', reason: body.reason, group_size: 4, revision: res.body.data.revision });

    const again = await decide(first.group_id, body);
    expect(again.status).toBe(200);
    expect(again.body.data.changed).toBe(0);
    expect((await groups()).map((g) => g.group_id)).not.toContain(first.group_id);
  });

  it('moves the batch amount and the review counts by what the decision changed', async () => {
    const before = (await getBatch(batchId))!;
    const [group] = await groups();
    const res = await decide(group.group_id, { ncm_code: '9503.00.99', reason: 'Juguetes' });
    const after = (await getBatch(batchId))!;
    expect(after.summary!.review_pending).toBe(before.summary!.review_pending! - res.body.data.left_review);
    expect(Math.round((after.summary!.amount_to_pay! - before.summary!.amount_to_pay!) * 100)).toBe(Math.round(res.body.data.amount_to_pay_moved * 100));
  });

  it('finishes the records of a decision whose writer died after the batch moved: the retry writes them and changes nothing', async () => {
    const other = await submitForBatch(
      t,
      partner.token,
      manifest(0, { items: [10, 11, 12].map((i) => item(i, { itemDescription: 'Caja misteriosa', hsCode: undefined, fobValueUsd: 30, consigneeIdNumber: freshCuil('20') })) }),
    );
    await t.settle();
    const list = await t.call('GET', `/v1/couriers/manifests/${other}/review/groups`, { token: broker.token });
    const group = list.body.data[0];
    expect(group.products).toBe(3);
    // The writer dies between the batch's move and the products' records: reading what they are fails once.
    const real = blobs();
    let failures = 0;
    const dying = new Proxy(real, {
      get: (target, name) =>
        name === 'get'
          ? (key: string) => (key.endsWith('group-decision.json') && failures++ === 0 ? Promise.reject(new Error('killed')) : target.get(key))
          : (Reflect.get(target, name) as (...args: unknown[]) => unknown).bind(target),
    });
    useBlobs(dying);
    try {
      const path = `/v1/couriers/manifests/${other}/review/groups/${group.group_id}/classification`;
      const body = { ncm_code: '9503.00.99', reason: 'Juguetes' };
      const died = await t.call('PUT', path, { token: broker.token, body });
      expect(died.status).toBeGreaterThanOrEqual(500);
      expect((await getBatch(other))!.reviewWrites).toBeDefined();
      const retry = await t.call('PUT', path, { token: broker.token, body });
      expect(retry.status).toBe(200);
      expect(retry.body.data.changed).toBe(0);
    } finally {
      useBlobs(real);
    }
    expect((await getBatch(other))!.reviewWrites).toBeUndefined();
    const decisions = await t.call('GET', `/v1/couriers/manifests/${other}/review/decisions?per_page=100`, { token: broker.token });
    expect(decisions.body.data.filter((d: { group_id?: string }) => d.group_id === group.group_id)).toHaveLength(3);
  });
});
