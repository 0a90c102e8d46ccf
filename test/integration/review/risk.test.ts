/**
 * The risk flags on the twin (issue 40, item 5): a history of one product's declared values, then
 * a flight with one consignee split across two AWBs and one product declared far under that
 * history. The flags are read back where a broker meets them: the review answer, the inbox's
 * count, the downloads (json, csv, xlsx).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useTwin } from '#support/twin';
import { XLSX } from '#support/workbooks';
import { freshCuil, item, manifest, submitForBatch } from '#support/manifests';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { riskRuleCatalog } from '#core/customs/risk-rules';
import { documentClient } from '#infra/dynamo';
import { config } from '#shared/config';

const t = useTwin();

let courier: { accountId: number; token: string };
let broker: { token: string };
let flightBatch: string;
const flight = `MAWB-RISK-${Date.now()}`;
const splitCuil = freshCuil('20');
const headphones = { itemDescription: 'Auriculares bluetooth inalambricos', hsCode: undefined, amountOfItems: 1 };

type Flag = { code: string; reason: string; reason_en: string; norm: string };
type Row = { item_key: string; awb_number: string; review_causes: string[]; risk_flags?: Flag[]; ncm_code: string | null };

async function reviewRows(batchId: string): Promise<Row[]> {
  const rows: Row[] = [];
  let cursor: string | null = null;
  do {
    const res = await t.call('GET', `/v1/couriers/manifests/${batchId}/review?per_page=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { token: broker.token });
    expect(res.status).toBe(200);
    rows.push(...res.body.data);
    cursor = res.body.meta.next_cursor;
  } while (cursor);
  return rows;
}

const download = (batchId: string, format: string) => fetch(`${t.twin.apiUrl}/v1/couriers/manifests/${batchId}/download?format=${format}`, { headers: { authorization: `Bearer ${broker.token}` } });

beforeAll(async () => {
  courier = await t.account('Courier Riesgo');
  broker = await t.account('Broker Riesgo', { kind: 'broker' });
  // The history: 40 headphones declared at USD 95-105 each, to 40 people (an AWB each).
  const history = Array.from({ length: 40 }, (_, k) => item(1000 + k, { ...headphones, fobValueUsd: 95 + (k % 11), consigneeIdNumber: freshCuil('27') }));
  await submitForBatch(t, courier.token, manifest(0, { items: history }));
  await t.settle();
  // The flight: one person on two AWBs of USD 250 each (each within the USD 400 franchise,
  // together over it), one headphone at USD 3, and a product of nobody's concern.
  flightBatch = await submitForBatch(
    t,
    courier.token,
    manifest(0, {
      mawbNumber: flight,
      items: [
        item(1, { awbNumber: 'RISK-SPLIT-1', consigneeIdNumber: splitCuil, consigneeName: 'Juan Split', fobValueUsd: 250 }),
        item(2, { awbNumber: 'RISK-SPLIT-2', consigneeIdNumber: splitCuil, consigneeName: 'Juan Split', fobValueUsd: 250 }),
        item(3, { ...headphones, awbNumber: 'RISK-CHEAP-1', consigneeIdNumber: freshCuil('27'), fobValueUsd: 3 }),
        item(4, { awbNumber: 'RISK-PLAIN-1', consigneeIdNumber: freshCuil('27'), fobValueUsd: 20 }),
      ],
    }),
  );
  await t.settle();
}, 120_000);

describe('the risk flags of a flight', () => {
  it('put the split consignee’s products and the under-valued one in the review, each flag with its reason and norm', async () => {
    const rows = await reviewRows(flightBatch);
    const byAwb = new Map(rows.map((r) => [r.awb_number, r]));
    for (const awb of ['RISK-SPLIT-1', 'RISK-SPLIT-2']) {
      const r = byAwb.get(awb)!;
      expect(r.review_causes).toContain('risk');
      expect(r.risk_flags).toHaveLength(1);
      expect(r.risk_flags![0]).toMatchObject({ code: 'split_over_franchise', norm: riskRuleCatalog.split_over_franchise.norm });
      expect(r.risk_flags![0].reason).toContain('2 guías en este vuelo (RISK-SPLIT-1, RISK-SPLIT-2) suman USD 500,00 FOB, sobre la franquicia de USD 400,00');
      expect(r.risk_flags![0].reason_en).toContain('total USD 500.00 FOB, over the USD 400.00 franchise');
    }
    const cheap = byAwb.get('RISK-CHEAP-1')!;
    expect(cheap.review_causes).toContain('risk');
    expect(cheap.risk_flags!.map((f) => f.code)).toEqual(['under_valuation']);
    expect(cheap.risk_flags![0].reason).toMatch(/^FOB por unidad USD 3,00, \d+% de la mediana de la NCM \d{8} en este servicio \(USD \d+,\d\d, 40 valores\)/);
    expect(byAwb.get('RISK-PLAIN-1')?.risk_flags).toBeUndefined();
  });

  it('are counted in the inbox, by flight and by batch', async () => {
    const res = await t.call('GET', '/v1/couriers/review/inbox', { token: broker.token });
    expect(res.status).toBe(200);
    const row = res.body.data.flights.find((f: { mawb_number: string }) => f.mawb_number === flight);
    expect(row.risk_flags).toBe(3);
    expect(row.batches[0]).toMatchObject({ batch_id: flightBatch, risk_flags: 3 });
    expect(res.body.data.review.risk_flags).toBeGreaterThanOrEqual(3);
  });

  it('are in the downloads: the products of the json, a column of the csv and of the workbook', async () => {
    const json = (await (await download(flightBatch, 'json')).json()) as { data: { manifest: { summary: Record<string, unknown> }; products: Row[] } };
    expect(json.data.manifest.summary.risk_flags).toEqual({ products: 3, total: 3, by_rule: { split_over_franchise: 2, under_valuation: 1 } });
    expect(json.data.products.filter((p) => p.risk_flags).map((p) => p.awb_number).sort()).toEqual(['RISK-CHEAP-1', 'RISK-SPLIT-1', 'RISK-SPLIT-2']);

    const csv = (await (await download(flightBatch, 'csv')).text()).split('\r\n');
    const header = csv[0].split(',');
    expect(header.at(-1)).toBe('risk_flags');
    const split = csv.find((l) => l.startsWith('RISK-SPLIT-1,'))!;
    expect(split).toContain(`split_over_franchise: CUIL ${splitCuil.slice(0, 2)}-${splitCuil.slice(2, 10)}-${splitCuil.slice(10)}: 2 guías en este vuelo`);
    expect(split).toContain(`(${riskRuleCatalog.split_over_franchise.norm})`);
    expect(csv.find((l) => l.startsWith('RISK-PLAIN-1,'))!.endsWith(',')).toBe(true);

    const book = XLSX.read(Buffer.from(await (await download(flightBatch, 'xlsx')).arrayBuffer()), { type: 'buffer' });
    const rows = XLSX.utils.sheet_to_json<Record<string, unknown>>(book.Sheets[book.SheetNames[0]]);
    expect(String(rows.find((r) => r.awb_number === 'RISK-CHEAP-1')!.risk_flags)).toMatch(/^under_valuation: FOB por unidad USD 3,00/);
    const summary = XLSX.utils.sheet_to_json<unknown[]>(book.Sheets.Summary, { header: 1 });
    expect(summary).toContainEqual(['risk_flags_products', 3]);
  });

  it('leave the products of a flight without risk untouched: the history batch has none', async () => {
    const res = await t.call('GET', '/v1/couriers/review/inbox', { token: broker.token });
    const others = res.body.data.flights.filter((f: { mawb_number: string }) => f.mawb_number !== flight);
    expect(others.map((f: { risk_flags: number }) => f.risk_flags)).toEqual(others.map(() => 0));
  });
});

describe('the risk flags across couriers', () => {
  const person = freshCuil('20');
  const own = freshCuil('27');
  let courierTwo: { accountId: number; token: string };
  let firstBatch: string;
  let ownSecondBatch: string;
  let otherBatch: string;

  const flightOf = (token: string, mawb: string, lines: ReturnType<typeof item>[]) => submitForBatch(t, token, manifest(0, { mawbNumber: mawb, items: lines }));

  beforeAll(async () => {
    courierTwo = await t.account('Courier Dos');
    // Courier one: the person at USD 250 (within the franchise), and someone of its own at USD 250.
    firstBatch = await flightOf(courier.token, `MAWB-X1-${Date.now()}`, [
      item(11, { awbNumber: 'XC-ONE-1', consigneeIdNumber: person, consigneeName: 'Paula Cruce', fobValueUsd: 250 }),
      item(12, { awbNumber: 'XC-ONE-2', consigneeIdNumber: own, consigneeName: 'Omar Propio', fobValueUsd: 250 }),
    ]);
    await t.settle();
    // Courier one again, another flight: its own consignee again (its own flights are not "other couriers").
    ownSecondBatch = await flightOf(courier.token, `MAWB-X2-${Date.now()}`, [item(13, { awbNumber: 'XC-ONE-3', consigneeIdNumber: own, consigneeName: 'Omar Propio', fobValueUsd: 250 })]);
    await t.settle();
    // Courier two: the same person at USD 250: each AWB within USD 400, the two over it.
    otherBatch = await flightOf(courierTwo.token, `MAWB-X3-${Date.now()}`, [item(14, { awbNumber: 'XC-TWO-1', consigneeIdNumber: person, consigneeName: 'Paula Cruce', fobValueUsd: 250 })]);
    await t.settle();
  }, 180_000);

  it('flag the later flight of one tax id whose AWBs of two couriers in the window are each within the franchise and together over it', async () => {
    const row = (await reviewRows(otherBatch)).find((r) => r.awb_number === 'XC-TWO-1')!;
    expect(row.review_causes).toContain('risk');
    expect(row.risk_flags!.map((f) => f.code)).toEqual(['split_across_couriers']);
    const flag = row.risk_flags![0];
    expect(flag.norm).toBe(riskRuleCatalog.split_across_couriers.norm);
    expect(flag.reason).toContain('1 guía en este vuelo y 1 guía de otro courier en los últimos 7 días suman USD 500,00 FOB, sobre la franquicia de USD 400,00');
    expect(flag.reason_en).toContain('1 AWB on this flight and 1 AWB of another courier in the last 7 days total USD 500.00 FOB');
  });

  it('are reviewed under the courier’s name: the review and its groups say whose flight it is', async () => {
    for (const path of ['review', 'review/groups']) {
      const res = await t.call('GET', `/v1/couriers/manifests/${otherBatch}/${path}`, { token: broker.token });
      expect(res.status).toBe(200);
      expect(res.body.meta).toMatchObject({ batch_id: otherBatch, account_id: courierTwo.accountId, account_name: 'Courier Dos' });
    }
  });

  it('name neither the other courier nor its AWBs in the reason a partner reads', async () => {
    const res = await t.call('GET', `/v1/couriers/manifests/${otherBatch}/download?format=json`, { token: courierTwo.token });
    expect(res.status).toBe(200);
    const text = JSON.stringify(res.body);
    expect(text).toContain('split_across_couriers');
    for (const secret of ['XC-ONE-1', 'Courier Riesgo', firstBatch]) expect(text).not.toContain(secret);
  });

  it('do not count a courier’s own earlier flights, nor flag the earlier flight', async () => {
    const own = await reviewRows(ownSecondBatch);
    expect(own.find((r) => r.awb_number === 'XC-ONE-3')?.risk_flags).toBeUndefined();
    const first = await reviewRows(firstBatch);
    expect(first.find((r) => r.awb_number === 'XC-ONE-1')?.risk_flags).toBeUndefined();
  });
});

describe('the NCM histories of unit values', () => {
  it('count a batch once: a broker’s decision, which runs the batch again, adds none of its values', async () => {
    const rows = await reviewRows(flightBatch);
    const cheap = rows.find((r) => r.awb_number === 'RISK-CHEAP-1')!;
    const key = { pk: `RISKNCM#${cheap.ncm_code!.replace(/\D/g, '').slice(0, 8)}`, sk: 'VALUES' };
    const count = async () => (await documentClient().send(new GetCommand({ TableName: config.tableName(), Key: key }))).Item?.n as number;
    const before = await count();
    expect(before).toBeGreaterThanOrEqual(41);
    const res = await t.call('PUT', `/v1/couriers/manifests/${flightBatch}/products/RISK-CHEAP-1/classification`, {
      token: broker.token,
      body: { ncm_code: cheap.ncm_code, reason: 'Revisado: auriculares, valor confirmado con factura' },
    });
    expect(res.status).toBe(200);
    await t.settle();
    const decisions = await t.call('GET', `/v1/couriers/manifests/${flightBatch}/review/decisions`, { token: broker.token });
    expect(decisions.body.data.map((d: { awb_number: string }) => d.awb_number)).toContain('RISK-CHEAP-1');
    expect(await count()).toBe(before);
  });
});
