import type { Principal } from '#core/auth/principal';
import { Conflict, NotFound, ValidationFailed } from '#core/errors';
import type { Regime } from '#core/customs/regime';
import { quotaYear, regimeRulesAt } from '#core/customs/regime-rules';
import { checkTaxId, quotaHolder, type TaxIdCheck, type TaxIdKind } from '#core/customs/tax-id';
import { isVisible, type BatchRecord, type StoredItem } from '#core/manifests/model';
import { now } from '#infra/clock';
import { setItemsTaxId } from '#infra/entities/manifest-items-taxid';
import { getBatch, itemsOfAwb } from '#infra/entities/manifests';
import { holdsQuota, releaseAwbQuota, reserveInTurns } from '#infra/entities/quota';
import type { ReserveQuotaResult } from '#core/customs/quota';
import { requestReprocessing } from '#infra/pipeline';
import { taxAuthority, type TaxIdRecord } from '#infra/tax-authority';
import { recordMetric } from '#shared/metrics';

/**
 * The web-services stage (tax ids and the personal-shipment quota) and the client-info use cases
 * (spec 4.6). The pipeline's web-services stage calls `checkShipmentTaxIds`; its alerts
 * (`manifest.invalid_cuit_detected`) are `pageAlerts` and `stageAlerts` in services/pipeline/stages.
 */

export interface ShipmentForTaxCheck {
  awb: string;
  accountId: number;
  /** The consignee's tax id as stored (digits); absent when the manifest gave none. */
  taxId?: string | null;
  taxIdType?: string | null;
  /** The regime the classification stage gave the shipment. */
  regime: Regime;
  itemKeys: string[];
}

export interface ShipmentTaxIdResult {
  awb: string;
  accountId: number;
  itemKeys: string[];
  /** The tax id's digits, or null when there were none. */
  tax_id: string | null;
  tax_id_result: { valid: boolean; kind: TaxIdKind; formatted: string | null; reason: string };
  /** Personal shipments left in the year after this AWB; null when no personal quota applies. */
  quota: number | null;
  /** The classification's regime, or C when a personal shipment found the quota used up. */
  regime: Regime;
  /** Why, for this stage (the classification keeps its own reasons). */
  reasons: string[];
  /** Why the AWB belongs in `manifest.invalid_cuit_detected`, or null. */
  alert: string | null;
}

export interface InvalidTaxIdAwb {
  awb_number: string;
  tax_id: string | null;
  reason: string;
}

/**
 * Checks the tax id of every shipment and reserves one personal-shipment slot per personal AWB
 * (`reserveQuota`: a re-run or a retry of the same AWB never counts twice).
 *
 * - X (prohibited, not cleared): nothing is checked against the ledger and nothing is flagged.
 * - Missing or invalid tax id on a P or C shipment: flagged (`alert`: "no tax id" or the check
 *   that failed); the regime stays, no slot is reserved, `quota` is null. A correction through
 *   PUT /v1/couriers/client-info runs this stage again for the AWB.
 * - C with a valid tax id: no personal quota applies; `quota` is null.
 * - P with a person's valid tax id: a slot is reserved; `quota` is what is left. When the year is
 *   used up the shipment becomes C (reason given), `quota` is 0 and it is flagged.
 *
 * Shipments of one person are reserved one after another in the order given (so the first five
 * AWBs of a manifest get the slots); different people go together (`reserveInTurns`: up to 100
 * counters per transaction, `concurrency` transactions at a time). Once a person's year is found
 * used up, their other AWBs are decided from that answer without a write, so a page of 500 AWBs
 * of one person costs at most six reservations, not 500.
 */
export async function checkShipmentTaxIds(
  shipments: readonly ShipmentForTaxCheck[],
  at: Date,
  opts: { concurrency?: number } = {},
): Promise<Map<string, ShipmentTaxIdResult>> {
  const rules = regimeRulesAt(at);
  const year = quotaYear(at);
  const limit = rules.personal_shipments_per_year;
  const results = new Array<ShipmentTaxIdResult>(shipments.length);
  // Shipments that take a slot, by person: a person's AWBs are reserved one turn after another
  // (so the first five of a manifest get the slots); each turn reserves one AWB of every person,
  // many people at once.
  const lanes = new Map<string, number[]>();
  shipments.forEach((s, i) => {
    const decided = decideWithoutQuota(s);
    if (decided) results[i] = decided;
    else {
      const holder = quotaHolder(checkTaxId(s.taxId, s.taxIdType))!;
      const list = lanes.get(holder);
      if (list) list.push(i);
      else lanes.set(holder, [i]);
    }
  });
  const queues = [...lanes.values()];
  const reserved = await reserveInTurns(
    queues.map((q) => q.map((i) => ({ taxId: checkTaxId(shipments[i].taxId, shipments[i].taxIdType).digits!, year, awb: shipments[i].awb, accountId: shipments[i].accountId, at, limit }))),
    { concurrency: opts.concurrency },
  );
  queues.forEach((q, l) => q.forEach((i, k) => (results[i] = withQuota(shipments[i], reserved[l][k], year, limit))));
  const refused = reserved.flat().filter((r) => !r.reserved).length;
  const invalid = results.filter((r) => r.regime !== 'X' && !r.tax_id_result.valid).length;
  if (refused) recordMetric('QuotaReservationsRefused', refused);
  if (invalid) recordMetric('TaxIdsInvalid', invalid);
  return new Map(results.map((r) => [r.awb, r]));
}

function baseOf(s: ShipmentForTaxCheck) {
  const check = checkTaxId(s.taxId, s.taxIdType);
  return {
    check,
    name: check.formatted ? `${check.type ?? 'tax id'} ${check.formatted}` : 'the tax id',
    base: {
      awb: s.awb,
      accountId: s.accountId,
      itemKeys: s.itemKeys,
      tax_id: check.digits,
      tax_id_result: { valid: check.valid, kind: check.kind, formatted: check.formatted, reason: check.reason },
    },
  };
}

/** Every case that takes no quota slot; undefined for a person's valid personal shipment. */
function decideWithoutQuota(s: ShipmentForTaxCheck): ShipmentTaxIdResult | undefined {
  const { check, name, base } = baseOf(s);
  if (s.regime === 'X') return { ...base, quota: null, regime: 'X', reasons: ['prohibited: not cleared, the tax id and quota are not checked'], alert: null };
  if (!check.valid) {
    const alert = check.reason === 'no tax id' ? 'no tax id' : `invalid tax id: ${check.reason}`;
    const reasons = [`${alert}; no personal quota reserved until it is corrected`];
    return { ...base, quota: null, regime: s.regime, reasons, alert };
  }
  if (s.regime === 'C') return { ...base, quota: null, regime: 'C', reasons: [`${name} is valid; a commercial shipment uses no personal quota`], alert: null };
  if (check.kind !== 'person') {
    return { ...base, quota: null, regime: 'C', reasons: [`${name} is not a person's (${check.kind}): commercial, no personal quota`], alert: null };
  }
  return undefined;
}

function withQuota(s: ShipmentForTaxCheck, r: ReserveQuotaResult, year: number, limit: number): ShipmentTaxIdResult {
  const { name, base } = baseOf(s);
  if (r.reserved) {
    const how = r.alreadyReserved ? 'already held by this AWB' : 'reserved';
    return { ...base, quota: r.remaining, regime: 'P', reasons: [`personal shipment ${how}: ${r.used} of ${limit} in ${year} used for ${name}, ${r.remaining} left`], alert: null };
  }
  return {
    ...base,
    quota: 0,
    regime: 'C',
    reasons: [`quota used up: ${name} already had ${limit} personal shipments in ${year}; cleared as commercial`],
    alert: `quota used up (0 of ${limit} personal shipments left in ${year})`,
  };
}

/* ---- endpoints (spec 4.6) ---- */

/** A tax id the endpoints accept, or 422 on `field` naming what failed. */
export function requireValidTaxId(raw: string, field = 'tax_id'): TaxIdCheck {
  const check = checkTaxId(raw);
  if (!check.valid) throw new ValidationFailed({ [field]: [`Not a valid CUIT, CUIL or DNI: ${check.reason}.`] });
  return check;
}

export type QuotaCheckAnswer = TaxIdRecord & { awb_number?: string; awb_holds_quota?: boolean };

/**
 * POST /v1/couriers/quota/check: the tax id's record of spec 2.7 from the tax authority port.
 * With `awb_number`, also whether that AWB of the caller already holds one of this year's slots
 * (so processing it again takes no other).
 */
export async function quotaCheck(principal: Principal, taxId: string, awb?: string): Promise<QuotaCheckAnswer> {
  const check = requireValidTaxId(taxId);
  const at = now();
  const record = await taxAuthority().lookup(check.digits!, at);
  if (awb === undefined) return record;
  return { ...record, awb_number: awb, awb_holds_quota: await holdsQuota(check.digits!, quotaYear(at), awb, principal.accountId) };
}

export type ClientInfoStatus = 'editable' | 'cleared';

interface AwbState {
  items: StoredItem[];
  batches: BatchRecord[];
  closed: BatchRecord | undefined;
  currentTaxId: string | null;
}

async function awbState(principal: Principal, awb: string): Promise<AwbState> {
  const found = await itemsOfAwb(principal.accountId, awb);
  const batchIds = [...new Set(found.map((i) => i.batchId))];
  // Items of a batch still being written are not there yet for the partner (all or nothing).
  const batches = (await Promise.all(batchIds.map((id) => getBatch(id)))).filter((b): b is BatchRecord => Boolean(b) && isVisible(b!));
  const items = found.filter((it) => batches.some((b) => b.batchId === it.batchId));
  if (!items.length) throw new NotFound(`No shipment with AWB ${awb} in your account.`);
  const latest = [...items].sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0)).find((i) => i.data.consigneeIdNumber);
  return { items, batches, closed: batches.find((b) => b.closedAt), currentTaxId: latest?.data.consigneeIdNumber ?? null };
}

/**
 * POST /v1/couriers/client-info/can-edit. An AWB's tax id can be corrected until its products are
 * cleared: until the broker closes a batch that holds it (`closedAt`; closing is the broker's
 * clearance step). 404 when the caller has no item with that AWB.
 */
export async function canEditClientInfo(principal: Principal, awb: string) {
  const state = await awbState(principal, awb);
  const status: ClientInfoStatus = state.closed ? 'cleared' : 'editable';
  return { awb_number: awb, can_edit: !state.closed, current_tax_id: state.currentTaxId, status };
}

/**
 * PUT /v1/couriers/client-info: corrects the consignee's tax id on every item of the caller with
 * that AWB, gives back the personal-shipment slot the AWB held under the old tax id, and asks the
 * pipeline to run web services and calculations again for the AWB. 422 for an invalid tax id,
 * 404 for an AWB the caller does not have, 409 once the AWB is cleared.
 */
export async function updateClientInfo(principal: Principal, awb: string, taxId: string) {
  const check = requireValidTaxId(taxId);
  const state = await awbState(principal, awb);
  const cleared = () =>
    new Conflict(`AWB ${awb} is cleared: its batch was closed by the broker, so its tax id can no longer be changed.`, {
      awb_number: awb,
      closed_at: state.closed?.closedAt ?? null,
    });
  if (state.closed) throw cleared();
  const at = now();
  const byBatch = new Map<string, string[]>();
  for (const it of state.items) byBatch.set(it.batchId, [...(byBatch.get(it.batchId) ?? []), it.itemKey]);
  for (const [batchId, keys] of byBatch) {
    const outcome = await setItemsTaxId(batchId, keys, { taxId: check.digits!, taxIdType: check.type!, at: at.toISOString() });
    if (outcome === 'closed') {
      state.closed = await getBatch(batchId);
      throw cleared();
    }
    if (outcome === 'missing') throw new NotFound(`No shipment with AWB ${awb} in your account.`);
  }
  await releaseAwbQuota({ awb, accountId: principal.accountId, fromTaxIds: state.items.map((it) => it.data.consigneeIdNumber), keepTaxId: check.digits!, at });
  for (const batchId of byBatch.keys()) {
    await requestReprocessing({ accountId: principal.accountId, batchId, awb, stages: ['webservices', 'calculations'] });
  }
  const changed = state.currentTaxId !== check.digits;
  return {
    message: changed
      ? `Tax id of AWB ${awb} updated to ${check.formatted}; web services and calculations run again for it.`
      : `Tax id of AWB ${awb} is ${check.formatted}; web services and calculations run again for it.`,
    data: { awb_number: awb, tax_id_formatted: check.formatted! },
  };
}
