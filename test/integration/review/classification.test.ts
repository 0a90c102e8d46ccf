/**
 * The broker's review on the twin (issue 33): the review queue of a processed batch, the NCM
 * correction (PUT .../products/{awb}/classification), its decision log, the summary and downloads it
 * updates, the announcement at close, the partner-code memory and a tax id's quota shipments.
 */
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { useTwin } from '#support/twin';
import { freshCuil, item, manifest, submitForBatch, submitPath } from '#support/manifests';
import { useEvents, type DomainEvent } from '#infra/events';
import { calibration } from '#core/tariff/calibration';

const t = useTwin();
const seen: DomainEvent[] = [];
beforeEach(() => {
  seen.length = 0;
  useEvents({ publish: async (events) => (seen.push(...events), t.twin.jobs.publish(events)) });
});

/** A commercial consignee (a company's CUIT): duty on the full CIF. */
const company = { consigneeIdType: 'CUIT', consigneeIdNumber: '30703088534' };
const vague = 'Assorted sample lot misc';

let partner: { accountId: number; token: string };
let broker: { token: string };
let batchId: string;
const person = freshCuil('20');

beforeAll(async () => {
  partner = await t.account('Review Couriers');
  broker = await t.account('Broker Staff', { kind: 'broker' });
  batchId = await submitForBatch(t, 
    partner.token,
    manifest(0, {
      items: [
        item(1, { itemDescription: vague, hsCode: undefined, fobValueUsd: 200, productLink: 'https://shop.example.com/p/lot-77?utm_source=mail', ...company }),
        item(2, { itemDescription: 'Cotton t-shirt', fobValueUsd: 20, consigneeIdNumber: person }),
        item(3, { itemDescription: 'Cotton t-shirt', fobValueUsd: 15, consigneeIdNumber: person }),
        item(4, { awbNumber: 'AWB0000003', itemDescription: 'Mochila de poliester', hsCode: undefined, fobValueUsd: 30, consigneeIdNumber: person }),
      ],
    }),
  );
  await t.settle();
}, 60_000);

const path = (awb: string) => `/v1/couriers/manifests/${batchId}/products/${awb}/classification`;

describe('the review queue', () => {
  it('lists the products in channel A or RO or below the review threshold, with causes, candidates and the declared code', async () => {
    const res = await t.call('GET', `/v1/couriers/manifests/${batchId}/review`, { token: broker.token });
    expect(res.status).toBe(200);
    const vagueRow = res.body.data.find((p: { awb_number: string }) => p.awb_number === 'AWB0000001');
    expect(vagueRow).toBeDefined();
    expect(vagueRow.review_causes).toContain('low_confidence');
    expect(vagueRow.customs_channel).toBe('A');
    expect(vagueRow.declared_code).toBeNull();
    expect(vagueRow.candidates.length).toBeGreaterThan(0);
    // Each candidate with its VAT beside its duty (both rates) and the words it matched (why it was proposed, issue 40).
    for (const c of vagueRow.candidates) expect(c).toEqual({ ncm_code: expect.any(String), description: expect.any(String), duty_rate: expect.any(Number), vat_rate: expect.any(Number), score: expect.any(Number), matched_words: expect.any(Array) });
    expect(vagueRow.candidates[0].matched_words.length).toBeGreaterThan(0);
    expect(res.body.data.some((p: { awb_number: string }) => p.awb_number === 'AWB0000002')).toBe(false);
    expect(res.body.meta).toMatchObject({ batch_id: batchId, review_threshold: calibration.review_below, next_cursor: null });
  });

  it('pages with a cursor: per_page 1 answers the first product and the key to continue after', async () => {
    const first = await t.call('GET', `/v1/couriers/manifests/${batchId}/review?per_page=1`, { token: broker.token });
    const all = await t.call('GET', `/v1/couriers/manifests/${batchId}/review`, { token: broker.token });
    expect(first.body.data).toHaveLength(1);
    if (all.body.data.length > 1) {
      expect(first.body.meta.next_cursor).toMatch(/^[A-Za-z0-9_-]{23,}$/);
      const second = await t.call('GET', `/v1/couriers/manifests/${batchId}/review?per_page=1&cursor=${encodeURIComponent(first.body.meta.next_cursor)}`, { token: broker.token });
      expect(second.body.data[0].item_key).toBe(all.body.data[1].item_key);
    }
  });

  it("answers 404 for another account's batch to a partner", async () => {
    const other = await t.account('Other Couriers');
    expect((await t.call('GET', `/v1/couriers/manifests/${batchId}/review`, { token: other.token })).status).toBe(404);
  });
});

describe('PUT .../products/{awb}/classification', () => {
  it('answers 403 to a partner: only the broker decides', async () => {
    const res = await t.call('PUT', path('AWB0000001'), { token: partner.token, body: { ncm_code: '4202.92.00', reason: 'x' } });
    expect(res.status).toBe(403);
  });

  it('answers 422 naming ncm_code when it is not an 8-digit NCM, or not a row of the table', async () => {
    const bad = await t.call('PUT', path('AWB0000001'), { token: broker.token, body: { ncm_code: '42', reason: 'x' } });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors)).toEqual(['ncm_code']);
    const unknown = await t.call('PUT', path('AWB0000001'), { token: broker.token, body: { ncm_code: '0101.01.01', reason: 'x' } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors.ncm_code[0]).toMatch(/not a row of the tariff table/);
  });

  it('answers 422 naming reason when it is missing or blank', async () => {
    const res = await t.call('PUT', path('AWB0000001'), { token: broker.token, body: { ncm_code: '4202.92.00', reason: '   ' } });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual(['reason']);
  });

  it('answers 404 for an AWB the batch does not hold, and for an unknown batch', async () => {
    expect((await t.call('PUT', path('NOPE0001'), { token: broker.token, body: { ncm_code: '4202.92.00', reason: 'x' } })).status).toBe(404);
    const res = await t.call('PUT', `/v1/couriers/manifests/bat_nope/products/AWB0000001/classification`, { token: broker.token, body: { ncm_code: '4202.92.00', reason: 'x' } });
    expect(res.status).toBe(404);
  });

  it('answers 422 naming item_key when the AWB has more than one product and none is named', async () => {
    const res = await t.call('PUT', path('AWB0000003'), { token: broker.token, body: { ncm_code: '4202.92.00', reason: 'Backpack' } });
    expect(res.status).toBe(422);
    expect(res.body.errors.item_key[0]).toMatch(/has 2 products/);
  });

  it("recomputes the product's duty, taxes and channel, records the decision, and updates the summary and the downloads", async () => {
    const before = (await t.call('GET', `/v1/couriers/manifests/${batchId}/download`, { token: partner.token })).body.data;
    const old = before.products.find((p: { awb_number: string }) => p.awb_number === 'AWB0000001');
    expect(old.customs_channel).toBe('A');

    const res = await t.call('PUT', path('AWB0000001'), { token: broker.token, body: { ncm_code: '42029200', reason: 'Backpacks of textile, per the invoice' } });
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(d.product).toMatchObject({ ncm_code: '4202.92.00', classification_source: 'broker', classification_confidence: 1, customs_channel: 'V' });
    expect(d.product.review).toMatchObject({ ncm_code_before: old.ncm_code, ncm_code: '4202.92.00', reason: 'Backpacks of textile, per the invoice', decided_by: 'Broker Staff token' });
    expect(d.before).toMatchObject({ ncm_code: old.ncm_code, customs_channel: 'A', customs_duty: old.customs_duty });
    expect(d.product.customs_duty).not.toBe(old.customs_duty);
    // 35% of the CIF (commercial): the duty follows the new NCM's rate.
    expect(d.product.customs_duty).toBeCloseTo(d.product.cif_value * 0.35, 1);
    expect(d.product.reasons.some((r: string) => r.startsWith('low-confidence'))).toBe(false);
    const delta = d.product.amount_to_pay - old.amount_to_pay;
    expect(d.summary.amount_to_pay).toBeCloseTo(before.manifest.summary.amount_to_pay + delta, 2);

    const after = (await t.call('GET', `/v1/couriers/manifests/${batchId}/download`, { token: partner.token })).body.data;
    expect(after.products.find((p: { awb_number: string }) => p.awb_number === 'AWB0000001')).toMatchObject({ ncm_code: '4202.92.00', customs_channel: 'V', customs_duty: d.product.customs_duty });
    expect(after.manifest.summary.amount_to_pay).toBe(d.summary.amount_to_pay);
    expect(after.products.filter((p: { classification_source: string }) => p.classification_source !== 'broker')).toEqual(before.products.filter((p: { awb_number: string }) => p.awb_number !== 'AWB0000001'));
    const csv = await fetch(`${t.twin.apiUrl}/v1/couriers/manifests/${batchId}/download?format=csv`, { headers: { authorization: `Bearer ${partner.token}` } });
    expect(await csv.text()).toContain('4202.92.00');
    const xlsx = await fetch(`${t.twin.apiUrl}/v1/couriers/manifests/${batchId}/download?format=xlsx`, { headers: { authorization: `Bearer ${partner.token}` } });
    expect(xlsx.status).toBe(200);

    const log = await t.call('GET', `/v1/couriers/manifests/${batchId}/review/decisions`, { token: partner.token });
    expect(log.body.data).toHaveLength(1);
    expect(log.body.data[0]).toMatchObject({ revision: 1, awb_number: 'AWB0000001', ncm_code: '4202.92.00', customs_channel_before: 'A', customs_channel: 'V', decided_by: 'Broker Staff token' });

    const queue = await t.call('GET', `/v1/couriers/manifests/${batchId}/review`, { token: broker.token });
    expect(queue.body.data.some((p: { awb_number: string }) => p.awb_number === 'AWB0000001')).toBe(false);
  });

  it('changes nothing when the same decision is sent again (a retry)', async () => {
    const again = await t.call('PUT', path('AWB0000001'), { token: broker.token, body: { ncm_code: '4202.92.00', reason: 'Backpacks of textile, per the invoice' } });
    expect(again.status).toBe(200);
    expect(again.body.message).toMatch(/already recorded/);
    expect(again.body.data.revision).toBe(1);
    const log = await t.call('GET', `/v1/couriers/manifests/${batchId}/review/decisions`, { token: broker.token });
    expect(log.body.data).toHaveLength(1);
  });

  it('records two decisions sent at once, each once, and the summary holds both', async () => {
    const items = (await t.call('GET', `/v1/couriers/manifests/${batchId}/download`, { token: partner.token })).body.data.products.filter((p: { awb_number: string }) => p.awb_number === 'AWB0000003');
    const [a, b] = await Promise.all(
      items.map((p: { item_key: string }, n: number) =>
        t.call('PUT', path('AWB0000003'), { token: broker.token, body: { ncm_code: n ? '6109.10.00' : '4202.92.00', reason: `line ${n}`, item_key: p.item_key } }),
      ),
    );
    expect([a.status, b.status]).toEqual([200, 200]);
    const log = await t.call('GET', `/v1/couriers/manifests/${batchId}/review/decisions`, { token: broker.token });
    expect(log.body.data.map((x: { revision: number }) => x.revision)).toEqual([3, 2, 1]);
    const after = (await t.call('GET', `/v1/couriers/manifests/${batchId}/download`, { token: partner.token })).body.data;
    const total = after.products.reduce((n: number, p: { amount_to_pay: number }) => n + Math.round(p.amount_to_pay * 100), 0) / 100;
    expect(after.manifest.summary.amount_to_pay).toBeCloseTo(total, 2);
    expect(after.products.filter((p: { awb_number: string; classification_source: string }) => p.awb_number === 'AWB0000003' && p.classification_source === 'broker')).toHaveLength(2);
  });

  it('announces the review once at the close, refuses corrections with 423 while closed', async () => {
    const closed = await t.call('POST', `/v1/couriers/batches/${batchId}/close`, { token: broker.token });
    expect(closed.status).toBe(200);
    const processed = seen.filter((e) => e.type === 'manifest.processed');
    expect(processed).toHaveLength(1);
    expect(processed[0].data).toMatchObject({ batch_id: batchId, review: { revision: 3 } });
    await t.call('POST', `/v1/couriers/batches/${batchId}/close`, { token: broker.token });
    expect(seen.filter((e) => e.type === 'manifest.processed')).toHaveLength(1);

    const locked = await t.call('PUT', path('AWB0000001'), { token: broker.token, body: { ncm_code: '6109.10.00', reason: 'late' } });
    expect(locked.status).toBe(423);
    expect(locked.body.error).toBe('manifest_closed');
    // The broker is told to reopen it, not to ask the broker.
    expect(locked.body.message).toMatch(/Reopen it \(POST \/v1\/couriers\/batches\/.+\/reopen\)/);
    await t.call('POST', `/v1/couriers/batches/${batchId}/reopen`, { token: broker.token });
  });

  it("teaches the partner-code memory: the partner's next manifest gets the broker's code for the same product", async () => {
    const next = await submitForBatch(t, partner.token, manifest(0, { items: [item(50, { itemDescription: `  ${vague.toUpperCase()} `, hsCode: undefined, fobValueUsd: 200, ...company })] }));
    await t.settle();
    const res = await t.call('GET', `/v1/couriers/manifests/${next}/download`, { token: partner.token });
    expect(res.body.data.products[0]).toMatchObject({ ncm_code: '4202.92.00', classification_source: 'broker', classification_confidence: 1 });
    // Another partner's same product is not taught.
    const other = await t.account('Unrelated Couriers');
    const theirs = await submitForBatch(t, other.token, manifest(0, { items: [item(60, { itemDescription: vague, hsCode: undefined, fobValueUsd: 200, ...company })] }));
    await t.settle();
    const them = await t.call('GET', `/v1/couriers/manifests/${theirs}/download`, { token: other.token });
    expect(them.body.data.products[0].classification_source).not.toBe('broker');
  });

  it('answers the same description under another declared code or category, and the same product link under another description', async () => {
    const next = await submitForBatch(
      t,
      partner.token,
      manifest(0, {
        items: [
          item(70, { itemDescription: vague, hsCode: '9503.00', Category: 'Toys', fobValueUsd: 200, ...company }),
          item(71, { itemDescription: 'Lote surtido de muestras', hsCode: undefined, fobValueUsd: 200, productLink: 'https://WWW.shop.example.com/p/lot-77/?utm_campaign=x', ...company }),
          item(72, { itemDescription: 'Lote surtido de muestras', hsCode: undefined, fobValueUsd: 200, productLink: 'https://shop.example.com/p/lot-78', ...company }),
        ],
      }),
    );
    await t.settle();
    const res = await t.call('GET', `/v1/couriers/manifests/${next}/download`, { token: partner.token });
    const sources = res.body.data.products.map((p: { ncm_code: string; classification_source: string }) => [p.ncm_code, p.classification_source]);
    expect(sources.slice(0, 2)).toEqual([
      ['4202.92.00', 'broker'],
      ['4202.92.00', 'broker'],
    ]);
    expect(sources[2][1]).not.toBe('broker');
  });
});

describe('GET /v1/couriers/review/batches', () => {
  it("lists every account's batches newest first to a broker, with the account by id and by name and how often they were reviewed", async () => {
    const res = await t.call('GET', '/v1/couriers/review/batches?per_page=100', { token: broker.token });
    expect(res.status).toBe(200);
    const mine = res.body.data.find((b: { batch_id: string }) => b.batch_id === batchId);
    expect(mine).toMatchObject({ account_id: partner.accountId, account_name: 'Review Couriers', status: 'completed', reviewed: 3 });
    const created = res.body.data.map((b: { created_at: string }) => b.created_at);
    expect(created).toEqual([...created].sort().reverse());
    const first = await t.call('GET', '/v1/couriers/review/batches?per_page=1&status=completed', { token: broker.token });
    expect(first.body.data).toHaveLength(1);
    expect(first.body.meta.next_cursor).not.toBeNull();
    const second = await t.call('GET', `/v1/couriers/review/batches?per_page=1&status=completed&cursor=${encodeURIComponent(first.body.meta.next_cursor)}`, { token: broker.token });
    expect(second.body.data[0].batch_id).not.toBe(first.body.data[0].batch_id);
  });

  it('answers 403 to a partner, and 422 naming status for an unknown one', async () => {
    expect((await t.call('GET', '/v1/couriers/review/batches', { token: partner.token })).status).toBe(403);
    const bad = await t.call('GET', '/v1/couriers/review/batches?status=done', { token: broker.token });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors)).toEqual(['status']);
  });
});

describe('GET /v1/couriers/quota/{tax_id}/shipments', () => {
  it("lists the tax id's personal shipments of the year and the batches holding them", async () => {
    const res = await t.call('GET', `/v1/couriers/quota/${person}/shipments`, { token: partner.token });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ tax_id: person, used: 2, others: 0 });
    expect(res.body.data.shipments.map((s: { awb_number: string }) => s.awb_number).sort()).toEqual(['AWB0000002', 'AWB0000003']);
    expect(res.body.data.shipments[0].batches[0]).toMatchObject({ batch_id: batchId });
    const stranger = await t.account('Stranger Couriers');
    const theirs = await t.call('GET', `/v1/couriers/quota/${person}/shipments`, { token: stranger.token });
    expect(theirs.body.data).toMatchObject({ used: 2, others: 2, shipments: [] });
  });

  it('answers 422 naming tax_id for an invalid one', async () => {
    const res = await t.call('GET', '/v1/couriers/quota/20123456785/shipments', { token: partner.token });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual(['tax_id']);
  });
});

describe('hostile input to the review routes', () => {
  it('answers 422 on cursor, never 500, to cursors that are not ours', async () => {
    for (const cursor of ['garbage', 'eyJwayI6IngifQ', '%00', 'a'.repeat(1999)]) {
      for (const path of [`/v1/couriers/manifests/${batchId}/review/decisions`, '/v1/couriers/review/batches', `/v1/couriers/manifests/${batchId}/review`, `/v1/couriers/manifests/${batchId}/review/groups`, '/v1/couriers/review/inbox']) {
        const res = await t.call('GET', `${path}?cursor=${encodeURIComponent(cursor)}`, { token: broker.token });
        expect(res.status, `${path} ${cursor.slice(0, 20)}`).toBe(422);
        expect(Object.keys(res.body.errors), `${path} ${cursor.slice(0, 20)}`).toEqual(['cursor']);
      }
    }
  });

  it('answers 422 naming the field to bodies of the wrong shape, and writes nothing', async () => {
    for (const body of [[], 'x', { ncm_code: 42020000, reason: 'x' }, { ncm_code: '4202.92.00', reason: 'x'.repeat(501) }, { ncm_code: '4202.92.00', reason: 'bad\u0000' }]) {
      const res = await t.call('PUT', path('AWB0000002'), { token: broker.token, body });
      expect(res.status).toBe(422);
    }
    const log = await t.call('GET', `/v1/couriers/manifests/${batchId}/review/decisions`, { token: broker.token });
    expect(log.body.data.every((d: { awb_number: string }) => d.awb_number !== 'AWB0000002')).toBe(true);
  });
});
