import { afterEach, describe, expect, it, vi } from 'vitest';
import { useTwin } from '#support/twin';
import { cuitCheckDigit } from '#core/customs/tax-id';
import { quotaYear } from '#core/customs/regime-rules';
import { quotaHistoryCount, quotaOf, releaseQuota, reserveInTurns, reserveQuota, reserveQuotas } from '#infra/entities/quota';
import { documentClient } from '#infra/dynamo';
import { checkShipmentTaxIds, type ShipmentForTaxCheck } from '#services/customs/webservices';
import type { ManifestItem } from '#core/manifests/submission';
import type { PageItem } from '#services/pipeline/pages-store';
import { pageAlerts, runStage } from '#services/pipeline/stages';

const t = useTwin();

/** A valid CUIL of a person with this DNI (prefix 20). */
let nextDni = 30_000_000;
function cuil(dni = ++nextDni) {
  const first10 = `20${String(dni).padStart(8, '0')}`;
  return first10 + cuitCheckDigit(first10);
}
const at = new Date('2026-06-01T12:00:00Z');
const reserve = (taxId: string, awb: string, over: Partial<Parameters<typeof reserveQuota>[0]> = {}) =>
  reserveQuota({ taxId, year: 2026, awb, accountId: 1, at, ...over });

describe('the quota ledger', () => {
  it('gives a person 5 personal shipments a calendar year and refuses the 6th', async () => {
    const id = cuil();
    const results = [];
    for (let i = 1; i <= 6; i++) results.push(await reserve(id, `L1-${i}`));
    expect(results.map((r) => r.reserved)).toEqual([true, true, true, true, true, false]);
    expect(results[4]).toEqual({ reserved: true, alreadyReserved: false, used: 5, remaining: 0 });
    expect(results[5]).toEqual({ reserved: false, alreadyReserved: false, used: 5, remaining: 0 });
    expect(await quotaOf(id, 2026)).toEqual({ used: 5, remaining: 0, records: 5 });
  });

  it('counts the same AWB once however often it is reserved', async () => {
    const id = cuil();
    const first = await reserve(id, 'L2-1');
    const again = await reserve(id, 'L2-1');
    expect(first).toEqual({ reserved: true, alreadyReserved: false, used: 1, remaining: 4 });
    expect(again).toEqual({ reserved: true, alreadyReserved: true, used: 1, remaining: 4 });
  });

  it('reserves exactly 5 of 10 concurrent AWBs of one person', async () => {
    const id = cuil();
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => reserve(id, `L3-${i}`)));
    expect(results.filter((r) => r.reserved)).toHaveLength(5);
    expect(results.filter((r) => r.alreadyReserved)).toHaveLength(0);
    expect(await quotaOf(id, 2026)).toEqual({ used: 5, remaining: 0, records: 5 });
  });

  it('counts concurrent retries of one AWB once', async () => {
    const id = cuil();
    const results = await Promise.all(Array.from({ length: 6 }, () => reserve(id, 'L4-1')));
    expect(results.every((r) => r.reserved)).toBe(true);
    expect(results.filter((r) => !r.alreadyReserved)).toHaveLength(1);
    expect((await quotaOf(id, 2026)).used).toBe(1);
  });

  it('starts a new calendar year with a full quota', async () => {
    const id = cuil();
    for (let i = 1; i <= 5; i++) await reserve(id, `L5-${i}`, { year: 2025 });
    expect((await reserve(id, 'L5-6', { year: 2025 })).reserved).toBe(false);
    expect(await reserve(id, 'L5-6', { year: 2026 })).toMatchObject({ reserved: true, used: 1, remaining: 4 });
  });

  it('shares one quota between a CUIL and the DNI inside it', async () => {
    const dni = ++nextDni;
    await reserve(cuil(dni), 'L6-1');
    expect(await reserve(String(dni), 'L6-2')).toMatchObject({ reserved: true, used: 2 });
    expect((await quotaOf(String(dni), 2026)).used).toBe(2);
  });

  it('gives a slot back once on release', async () => {
    const id = cuil();
    await reserve(id, 'L7-1');
    await reserve(id, 'L7-2');
    expect(await releaseQuota({ taxId: id, year: 2026, awb: 'L7-1', accountId: 1 })).toEqual({ released: true, used: 1 });
    expect(await releaseQuota({ taxId: id, year: 2026, awb: 'L7-1', accountId: 1 })).toEqual({ released: false, used: 1 });
    expect(await quotaOf(id, 2026)).toEqual({ used: 1, remaining: 4, records: 1 });
  });

  it('counts a person\'s recorded shipments over all years', async () => {
    const id = cuil();
    await reserve(id, 'L8-1', { year: 2025 });
    await reserve(id, 'L8-2', { year: 2026 });
    expect(await quotaHistoryCount(id)).toBe(2);
  });
});

describe('the quota ledger, many holders at once (one transaction per 100 counters)', () => {
  const many = (ids: string[], awb: (k: number) => string, over: Partial<Parameters<typeof reserveQuota>[0]> = {}) =>
    ids.map((taxId, k) => ({ taxId, year: 2026, awb: awb(k), accountId: 1, at, ...over }));

  it('reserves one slot for each of 250 new holders, and nothing again when the same call repeats', async () => {
    const ids = Array.from({ length: 250 }, () => cuil());
    const first = await reserveQuotas(many(ids, (k) => `M1-${k}`));
    expect(first.every((r) => r.reserved && !r.alreadyReserved && r.used === 1 && r.remaining === 4)).toBe(true);
    const again = await reserveQuotas(many(ids, (k) => `M1-${k}`));
    expect(again.every((r) => r.reserved && r.alreadyReserved && r.used === 1 && r.remaining === 4)).toBe(true);
    for (const id of [ids[0], ids[99], ids[100], ids[249]]) expect(await quotaOf(id, 2026)).toEqual({ used: 1, remaining: 4, records: 1 });
  });

  it('answers each holder as a single reservation would, whatever its counter holds', async () => {
    const [fresh, four, full, holds] = [cuil(), cuil(), cuil(), cuil()];
    for (let i = 1; i <= 4; i++) await reserve(four, `M2-four-${i}`);
    for (let i = 1; i <= 5; i++) await reserve(full, `M2-full-${i}`);
    await reserve(holds, 'M2-holds');
    await reserve(holds, 'M2-holds-other');
    const out = await reserveQuotas(many([fresh, four, full, holds], (k) => ['M2-fresh', 'M2-four-5', 'M2-full-6', 'M2-holds'][k]));
    expect(out).toEqual([
      { reserved: true, alreadyReserved: false, used: 1, remaining: 4 },
      { reserved: true, alreadyReserved: false, used: 5, remaining: 0 },
      { reserved: false, alreadyReserved: false, used: 5, remaining: 0 },
      { reserved: true, alreadyReserved: true, used: 2, remaining: 3 },
    ]);
    expect(await quotaOf(four, 2026)).toEqual({ used: 5, remaining: 0, records: 5 });
    expect(await quotaOf(full, 2026)).toEqual({ used: 5, remaining: 0, records: 5 });
    expect(await quotaOf(holds, 2026)).toEqual({ used: 2, remaining: 3, records: 2 });
  });

  it('never passes the limit when runs reserve the same holders concurrently', async () => {
    const ids = Array.from({ length: 120 }, () => cuil());
    // Each holder has 3 slots used: three concurrent runs with other AWBs compete for the last 2,
    // a fourth repeats the first run's AWBs, and single reservations join in.
    await reserveQuotas(many(ids, (k) => `M3-a-${k}`));
    await reserveQuotas(many(ids, (k) => `M3-b-${k}`));
    await reserveQuotas(many(ids, (k) => `M3-c-${k}`));
    const runs = await Promise.all([
      reserveQuotas(many(ids, (k) => `M3-x-${k}`)),
      reserveQuotas(many(ids, (k) => `M3-y-${k}`)),
      reserveQuotas(many(ids, (k) => `M3-z-${k}`)),
      reserveQuotas(many(ids, (k) => `M3-x-${k}`)),
      ...ids.slice(0, 20).map((id, k) => reserve(id, `M3-x-${k}`)),
    ]);
    const [x, y, z, xAgain] = runs.slice(0, 4) as Awaited<ReturnType<typeof reserveQuotas>>[];
    const singles = runs.slice(4) as Awaited<ReturnType<typeof reserveQuota>>[];
    for (let k = 0; k < ids.length; k++) {
      // The AWB M3-x-k was asked for two or three times: every answer agrees, and one of them took the slot.
      const xAnswers = [x[k], xAgain[k], ...(k < singles.length ? [singles[k]] : [])];
      expect(new Set(xAnswers.map((r) => r.reserved)).size).toBe(1);
      expect(xAnswers.filter((r) => r.reserved && !r.alreadyReserved)).toHaveLength(x[k].reserved ? 1 : 0);
      expect([x[k].reserved, y[k].reserved, z[k].reserved].filter(Boolean)).toHaveLength(2);
      expect([y[k], z[k]].some((r) => r.alreadyReserved)).toBe(false);
      expect(await quotaOf(ids[k], 2026)).toEqual({ used: 5, remaining: 0, records: 5 });
    }
  });
});

/** Counts the ledger's writes from here on (conditional updates and transactions; a refused one counts too). */
function countWrites() {
  const send = vi.spyOn(documentClient(), 'send');
  return () => send.mock.calls.filter(([command]) => /^(Update|TransactWrite|Put)(Item)?Command$/.test(command.constructor.name)).length;
}
afterEach(() => vi.restoreAllMocks());

describe('the quota ledger, one holder\'s AWBs in turn', () => {
  const lane = (taxId: string, awbs: string[]) => awbs.map((awb) => ({ taxId, year: 2026, awb, accountId: 1, at }));

  it('answers the rest of a person\'s AWBs from the used-up counter, without another write', async () => {
    const id = cuil();
    for (let i = 1; i <= 5; i++) await reserve(id, `T1-held-${i}`);
    const writes = countWrites();
    const awbs = ['T1-new-1', 'T1-held-3', ...Array.from({ length: 98 }, (_, k) => `T1-new-${k + 2}`), 'T1-held-5'];
    const [out] = await reserveInTurns([lane(id, awbs)]);
    expect(writes()).toBe(1);
    expect(out[1]).toEqual({ reserved: true, alreadyReserved: true, used: 5, remaining: 0 });
    expect(out[100]).toEqual({ reserved: true, alreadyReserved: true, used: 5, remaining: 0 });
    const others = out.filter((_, k) => k !== 1 && k !== 100);
    expect(others.every((r) => r.reserved === false && r.used === 5 && r.remaining === 0)).toBe(true);
    expect(await quotaOf(id, 2026)).toEqual({ used: 5, remaining: 0, records: 5 });
  });

  it('gives a new person\'s first five AWBs the slots and refuses the other 495 in six turns', async () => {
    const [person, other] = [cuil(), cuil()];
    const writes = countWrites();
    const [many, one] = await reserveInTurns([lane(person, Array.from({ length: 500 }, (_, k) => `T2-${k}`)), lane(other, ['T2-other'])]);
    // Six turns, each one transaction, or two when it guessed the counter's state wrong.
    expect(writes()).toBeLessThanOrEqual(12);
    expect(many.slice(0, 5).map((r) => [r.reserved, r.used])).toEqual([[true, 1], [true, 2], [true, 3], [true, 4], [true, 5]]);
    expect(many.slice(5).every((r) => !r.reserved && r.used === 5)).toBe(true);
    expect(one).toEqual([{ reserved: true, alreadyReserved: false, used: 1, remaining: 4 }]);
  });

  it('answers a re-run of a used-up person\'s AWBs as before and counts nothing again', async () => {
    const id = cuil();
    const awbs = Array.from({ length: 50 }, (_, k) => `T3-${k}`);
    const first = await reserveInTurns([lane(id, awbs)]);
    const writes = countWrites();
    const again = await reserveInTurns([lane(id, awbs)]);
    expect(writes()).toBe(1);
    expect(again[0].map((r) => r.reserved)).toEqual(first[0].map((r) => r.reserved));
    expect(again[0].map((r) => r.alreadyReserved)).toEqual(first[0].map((r) => r.reserved));
    expect(await quotaOf(id, 2026)).toEqual({ used: 5, remaining: 0, records: 5 });
  });

  it('never passes the limit when pages of one person\'s AWBs reserve concurrently', async () => {
    const id = cuil();
    const pages = Array.from({ length: 8 }, (_, p) => lane(id, Array.from({ length: 100 }, (_, k) => `T4-${p}-${k}`)));
    const out = (await Promise.all(pages.map((page) => reserveInTurns([page])))).flatMap(([results]) => results);
    expect(out.filter((r) => r.reserved)).toHaveLength(5);
    expect(out.filter((r) => r.alreadyReserved)).toHaveLength(0);
    expect(await quotaOf(id, 2026)).toEqual({ used: 5, remaining: 0, records: 5 });
  });
});

describe('web-services stage: tax ids and quota per AWB', () => {
  const shipment = (awb: string, taxId: string | undefined, regime: 'P' | 'C' | 'X' = 'P'): ShipmentForTaxCheck => ({
    awb,
    accountId: 7,
    taxId,
    taxIdType: taxId && taxId.length === 11 ? 'CUIL' : undefined,
    regime,
    itemKeys: [`${awb}-item`],
  });

  /** What the web-services stage flags for these shipments, one item each, as `manifest.invalid_cuit_detected` lists them. */
  async function flagged(list: ShipmentForTaxCheck[]) {
    const items: PageItem[] = list.map((s) => ({
      itemKey: s.itemKeys[0],
      awb: s.awb,
      hash: s.awb,
      runId: 'run-1',
      data: { consigneeIdNumber: s.taxId ?? undefined, consigneeIdType: s.taxIdType ?? undefined } as ManifestItem,
    }));
    const classified = Object.fromEntries(list.map((s) => [s.itemKeys[0], { regime: s.regime }]));
    return pageAlerts('webservices', items, await runStage('webservices', items, classified, { accountId: 7, at }));
  }

  it('reserves once per personal AWB and turns the 6th into commercial, flagged', async () => {
    const id = cuil();
    const list = Array.from({ length: 6 }, (_, i) => shipment(`W1-${i + 1}`, id));
    const out = await checkShipmentTaxIds(list, at);
    expect([...out.values()].map((r) => [r.regime, r.quota])).toEqual([['P', 4], ['P', 3], ['P', 2], ['P', 1], ['P', 0], ['C', 0]]);
    expect(out.get('W1-6')!.reasons[0]).toMatch(/^quota used up: CUIL .* already had 5 personal shipments in 2026; cleared as commercial$/);
    expect(await flagged(list)).toEqual([{ awb_number: 'W1-6', tax_id: id, reason: 'quota used up (0 of 5 personal shipments left in 2026)' }]);
  });

  it('decides 500 AWBs of one person in six turns of the ledger, flagging the 495 over the quota', async () => {
    const id = cuil();
    const writes = countWrites();
    const list = Array.from({ length: 500 }, (_, i) => shipment(`W5-${i}`, id));
    const out = await checkShipmentTaxIds(list, at);
    expect(writes()).toBeLessThanOrEqual(12); // six turns of one or two transactions, not 500
    const results = [...out.values()];
    expect(results.slice(0, 5).map((r) => [r.regime, r.quota])).toEqual([['P', 4], ['P', 3], ['P', 2], ['P', 1], ['P', 0]]);
    expect(results.slice(5).every((r) => r.regime === 'C' && r.quota === 0)).toBe(true);
    expect(await flagged(list)).toHaveLength(495);
  });

  it('counts nothing again when the stage runs again', async () => {
    const id = cuil();
    await checkShipmentTaxIds([shipment('W2-1', id)], at);
    const again = (await checkShipmentTaxIds([shipment('W2-1', id)], at)).get('W2-1')!;
    expect(again).toMatchObject({ regime: 'P', quota: 4, alert: null });
    expect(again.reasons[0]).toContain('already held by this AWB');
  });

  it('flags a missing or invalid tax id and reserves nothing', async () => {
    const list = [shipment('W3-1', undefined), shipment('W3-2', '20123456785'), shipment('W3-3', undefined, 'C')];
    const out = await checkShipmentTaxIds(list, at);
    expect(out.get('W3-1')).toMatchObject({ regime: 'P', quota: null, alert: 'no tax id', tax_id_result: { valid: false, kind: 'unknown' } });
    expect(out.get('W3-2')).toMatchObject({ regime: 'P', quota: null, alert: 'invalid tax id: check digit of CUIL 20-12345678-5 is 5, expected 6' });
    expect((await flagged(list)).map((a) => a.awb_number)).toEqual(['W3-1', 'W3-2', 'W3-3']);
  });

  it('checks no quota for commercial and prohibited shipments', async () => {
    const id = cuil();
    const out = await checkShipmentTaxIds([shipment('W4-1', id, 'C'), shipment('W4-2', '20123456785', 'X')], at);
    expect(out.get('W4-1')).toMatchObject({ regime: 'C', quota: null, alert: null, tax_id_result: { valid: true, formatted: expect.stringMatching(/^20-\d{8}-\d$/) } });
    expect(out.get('W4-2')).toMatchObject({ regime: 'X', quota: null, alert: null });
    expect((await quotaOf(id, 2026)).used).toBe(0);
  });
});

describe('POST /v1/couriers/quota/check', () => {
  it('answers the record of spec 2.7 for a hyphenated tax id', async () => {
    const { token } = await t.account('Quota Couriers');
    const id = cuil();
    await reserve(id, 'Q1-1', { at: new Date(), year: quotaYear(new Date()) });
    const res = await t.call('POST', '/v1/couriers/quota/check', { token, body: { tax_id: `${id.slice(0, 2)}-${id.slice(2, 10)}-${id.slice(10)}` } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: {
        tax_id: id,
        tax_id_formatted: `${id.slice(0, 2)}-${id.slice(2, 10)}-${id.slice(10)}`,
        current_quota: { quota: 4, status: 1, domicilio: '' },
        historical_records_count: 1,
      },
    });
  });

  it('answers 422 on tax_id naming the check-digit failure', async () => {
    const { token } = await t.account('Quota Bad Couriers');
    const res = await t.call('POST', '/v1/couriers/quota/check', { token, body: { tax_id: '20-12345678-5' } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ tax_id: ['Not a valid CUIT, CUIL or DNI: check digit of CUIL 20-12345678-5 is 5, expected 6.'] });
  });

  it('answers status 2 and no personal quota for a company', async () => {
    const { token } = await t.account('Quota Company Couriers');
    const res = await t.call('POST', '/v1/couriers/quota/check', { token, body: { tax_id: '30712345671' } });
    expect(res.body.data.current_quota).toEqual({ quota: 0, status: 2, domicilio: '' });
  });

  it('says whether the caller\'s AWB already holds one of the slots', async () => {
    const { token, accountId } = await t.account('Quota Awb Couriers');
    const id = cuil();
    await reserve(id, 'Q4-1', { accountId, at: new Date(), year: quotaYear(new Date()) });
    const held = await t.call('POST', '/v1/couriers/quota/check', { token, body: { tax_id: id, awb_number: 'Q4-1' } });
    const other = await t.call('POST', '/v1/couriers/quota/check', { token, body: { tax_id: id, awb_number: 'Q4-2' } });
    expect(held.body.data).toMatchObject({ awb_number: 'Q4-1', awb_holds_quota: true });
    expect(other.body.data).toMatchObject({ awb_number: 'Q4-2', awb_holds_quota: false });
  });

  it('answers 401 without a token', async () => {
    expect((await t.call('POST', '/v1/couriers/quota/check', { token: null, body: { tax_id: '20123456786' } })).status).toBe(401);
  });
});
