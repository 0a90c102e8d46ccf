import { defineEntity, isConditionalFailure, service } from './entity';
import { now } from '../clock';
import { batchWriteAll } from '../batch-write';
import { checkTaxId, quotaHolder } from '../../core/customs/tax-id';
import { regimeRulesAt } from '../../core/customs/regime-rules';

/**
 * The quota ledger: personal shipments per person per calendar year (domain/customs-ar.md: "without
 * a connection to the registry, the service keeps its own ledger").
 *
 * - One counter per (holder, year) with `used`, and one reservation per (holder, year, AWB). Both
 *   live in the partition `QUOTA#<holder>#<year>`, so a year of a person reads as one partition.
 * - The holder is the person, whichever id names them: a person's CUIL/CUIT and their DNI share
 *   one quota (`quotaHolder` in core/customs/tax-id.ts); a company's CUIT is its own holder.
 * - Reserving is ONE conditional update of the counter: the AWB joins the counter's set of AWBs
 *   and `used` grows by 1, only if the AWB is not in the set yet and `used < limit`. A retry or a
 *   re-run of the same AWB finds it in the set and counts nothing; concurrent reservations for one
 *   holder are serialized by DynamoDB on that one item and never pass the limit. (A transaction
 *   with the reservation record did the same, but DynamoDB Local runs transactions one at a time,
 *   which made web services the slowest stage by far.) The reservation record is then put: it is
 *   an index (by AWB, by holder), written again by every later reserve of the AWB, so a crash
 *   between the two writes heals on the next run.
 * - Releasing (a tax-id correction moves the AWB's slot) is the mirror: the AWB leaves the set and
 *   `used` drops by 1 under the condition that the set holds it, then the record is deleted.
 * - Reservations are also indexed by AWB (gsi1, to find the slot an AWB holds) and by holder
 *   across years (gsi2, the history count).
 */

const keyless = { casing: 'none' } as const;

const counters = defineEntity({
  model: { entity: 'quotaCounter', version: '1', service },
  attributes: {
    holder: { type: 'string', required: true },
    year: { type: 'number', required: true },
    used: { type: 'number' },
    /** The AWBs holding the year's slots: what makes a reservation count once. */
    awbs: { type: 'set', items: 'string' },
    updatedAt: { type: 'string' },
  },
  indexes: {
    byHolderYear: {
      pk: { field: 'pk', composite: ['holder', 'year'], template: 'QUOTA#${holder}#${year}', ...keyless },
      sk: { field: 'sk', composite: [], template: 'COUNTER', ...keyless },
    },
  },
} as const);

const reservations = defineEntity({
  model: { entity: 'quotaReservation', version: '1', service },
  attributes: {
    holder: { type: 'string', required: true },
    year: { type: 'number', required: true },
    awb: { type: 'string', required: true },
    /** The tax id as the shipment named it (digits). */
    taxId: { type: 'string', required: true },
    accountId: { type: 'number', required: true },
    reservedAt: { type: 'string', required: true },
  },
  indexes: {
    byHolderYear: {
      pk: { field: 'pk', composite: ['holder', 'year'], template: 'QUOTA#${holder}#${year}', ...keyless },
      sk: { field: 'sk', composite: ['awb'], template: 'AWB#${awb}', ...keyless },
    },
    byAwb: {
      index: 'gsi1',
      pk: { field: 'gsi1pk', composite: ['awb'], template: 'QUOTAAWB#${awb}', ...keyless },
      sk: { field: 'gsi1sk', composite: ['holder', 'year'], template: '${holder}#${year}', ...keyless },
    },
    byHolder: {
      index: 'gsi2',
      pk: { field: 'gsi2pk', composite: ['holder'], template: 'QUOTAHOLDER#${holder}', ...keyless },
      sk: { field: 'gsi2sk', composite: ['year', 'awb'], template: '${year}#${awb}', ...keyless },
    },
  },
} as const);

export interface ReserveQuotaInput {
  /** CUIT, CUIL or DNI, digits (hyphens, dots and spaces are dropped). */
  taxId: string;
  year: number;
  awb: string;
  accountId: number;
  at: Date;
  /** Personal shipments per year; default: the regime rules in force at `at`. */
  limit?: number;
  /**
   * Collects the reservation record instead of putting it; the caller writes a stage's records
   * in batches (`putReservations`). The counter, which decides, is always written at once.
   */
  deferRecords?: AwbReservation[];
}

export interface ReserveQuotaResult {
  /** True when this AWB holds a slot of the year (taken now or before). */
  reserved: boolean;
  /** True when the slot was taken before (a retry or a re-run): nothing was counted now. */
  alreadyReserved: boolean;
  used: number;
  remaining: number;
}

export interface QuotaStatus {
  used: number;
  remaining: number;
  /** Reservations (personal shipments) recorded for the year. */
  records: number;
}

/** The ledger key of a tax id; throws for an id that cannot hold a quota (invalid). */
export function holderOf(taxId: string): string {
  const holder = quotaHolder(checkTaxId(taxId));
  if (!holder) throw new RangeError(`not a valid tax id: ${JSON.stringify(taxId)}`);
  return holder;
}

async function usedOf(holder: string, year: number): Promise<number> {
  const res = await counters().get({ holder, year }).go({ consistent: true });
  return (res.data?.used as number | undefined) ?? 0;
}

/**
 * Takes one of the year's personal-shipment slots of `taxId` for `awb`, once: a second call for
 * the same AWB answers `alreadyReserved` and counts nothing; a call when the year is used up
 * answers `reserved: false`.
 */
export async function reserveQuota(input: ReserveQuotaInput): Promise<ReserveQuotaResult> {
  const holder = holderOf(input.taxId);
  const limit = input.limit ?? regimeRulesAt(input.at).personal_shipments_per_year;
  const at = input.at.toISOString();
  const digits = input.taxId.replace(/\D/g, '');
  const record = async () => {
    const r = { holder, year: input.year, awb: input.awb, taxId: digits, accountId: input.accountId, reservedAt: at };
    if (input.deferRecords) input.deferRecords.push(r);
    else await reservations().put(r).go();
  };
  try {
    const res = await counters()
      .update({ holder, year: input.year })
      .add({ used: 1, awbs: [input.awb] })
      .set({ updatedAt: at })
      .where(({ used, awbs }, { notExists, lt, notContains }) => `(${notExists(used)} OR ${lt(used, limit)}) AND ${notContains(awbs, input.awb)}`)
      .go({ response: 'all_new' });
    await record();
    const used = (res.data.used as number | undefined) ?? 1;
    return { reserved: true, alreadyReserved: false, used, remaining: Math.max(0, limit - used) };
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
  }
  const counter = (await counters().get({ holder, year: input.year }).go({ consistent: true })).data;
  const used = (counter?.used as number | undefined) ?? 0;
  if (((counter?.awbs as string[] | undefined) ?? []).includes(input.awb)) {
    await record();
    return { reserved: true, alreadyReserved: true, used, remaining: Math.max(0, limit - used) };
  }
  return { reserved: false, alreadyReserved: false, used, remaining: 0 };
}

/**
 * Reserves many AWBs of different holders (one AWB per holder in a call), `concurrency` at a
 * time; their index records are written in batches at the end (or collected, with
 * `deferRecords`). Answers in the order given. (Batching the counter updates themselves, in
 * transactions or PartiQL batches, measured no faster on DynamoDB Local, which spends about the
 * same per conditional write either way.)
 */
export async function reserveQuotas(inputs: readonly ReserveQuotaInput[], opts: { concurrency?: number } = {}): Promise<ReserveQuotaResult[]> {
  const holders = inputs.map((i) => holderOf(i.taxId));
  if (new Set(holders).size !== holders.length) throw new RangeError('reserveQuotas takes one AWB per holder per call');
  const out = new Array<ReserveQuotaResult>(inputs.length);
  const records: AwbReservation[] = [];
  let next = 0;
  const worker = async () => {
    while (next < inputs.length) {
      const i = next++;
      out[i] = await reserveQuota({ ...inputs[i], deferRecords: inputs[i].deferRecords ?? records });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(opts.concurrency ?? 16, inputs.length)) }, worker));
  await putReservations(records);
  return out;
}

/**
 * Gives the AWB's slot of `taxId`'s year back (a tax-id correction: the slot moves to the new
 * tax id when the pipeline runs again). Answers whether there was a slot to give back.
 */
export async function releaseQuota(input: { taxId: string; year: number; awb: string; at?: Date }): Promise<{ released: boolean; used: number }> {
  const holder = quotaHolder(checkTaxId(input.taxId));
  if (!holder) return { released: false, used: 0 };
  return releaseHeld(holder, input.year, input.awb, input.at ?? now());
}

async function releaseHeld(holder: string, year: number, awb: string, at: Date): Promise<{ released: boolean; used: number }> {
  let released = false;
  try {
    await counters()
      .update({ holder, year })
      .delete({ awbs: [awb] })
      .subtract({ used: 1 })
      .set({ updatedAt: at.toISOString() })
      .where(({ awbs }, { contains }) => contains(awbs, awb))
      .go();
    released = true;
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
  }
  await reservations().delete({ holder, year, awb }).go();
  return { released, used: await usedOf(holder, year) };
}

export interface AwbReservation {
  holder: string;
  taxId: string;
  year: number;
  awb: string;
  accountId: number;
  reservedAt: string;
}

/** Puts reservation records (idempotent) in BatchWriteItem calls. */
export async function putReservations(records: readonly AwbReservation[]): Promise<void> {
  function* requests() {
    for (let i = 0; i < records.length; i += 25) yield* reservations().put(records.slice(i, i + 25) as AwbReservation[]).params<{ RequestItems: never }[]>();
  }
  await batchWriteAll(requests());
}

/** The slots an AWB holds, under any tax id and year. */
export async function reservationsOfAwb(awb: string): Promise<AwbReservation[]> {
  const res = await reservations().query.byAwb({ awb }).go({ pages: 'all' });
  return res.data as AwbReservation[];
}

/**
 * Gives back every slot the AWB holds for `accountId` under another person than `keepTaxId` (all
 * of them when it is not given or not valid): what a tax-id correction does before the pipeline
 * reserves again under the new tax id.
 */
export async function releaseAwbQuota(input: { awb: string; accountId: number; keepTaxId?: string; at?: Date }): Promise<AwbReservation[]> {
  const keep = input.keepTaxId ? quotaHolder(checkTaxId(input.keepTaxId)) : null;
  const released: AwbReservation[] = [];
  for (const r of await reservationsOfAwb(input.awb)) {
    if (r.accountId !== input.accountId || r.holder === keep) continue;
    if ((await releaseHeld(r.holder, r.year, r.awb, input.at ?? now())).released) released.push(r);
  }
  return released;
}

/** The year's ledger of a tax id: slots used, left and recorded. */
export async function quotaOf(taxId: string, year: number, limit?: number): Promise<QuotaStatus> {
  const holder = holderOf(taxId);
  const max = limit ?? regimeRulesAt(now()).personal_shipments_per_year;
  const [used, records] = await Promise.all([
    usedOf(holder, year),
    reservations()
      .query.byHolderYear({ holder, year })
      .go({ pages: 'all', attributes: ['awb'] })
      .then((r) => r.data.length),
  ]);
  return { used, remaining: Math.max(0, max - used), records };
}

/** Every personal shipment the ledger recorded for the tax id's holder, all years. */
export async function quotaHistoryCount(taxId: string): Promise<number> {
  const holder = holderOf(taxId);
  const res = await reservations().query.byHolder({ holder }).go({ pages: 'all', attributes: ['awb'] });
  return res.data.length;
}

/** The slot the AWB holds among the tax id's of the year, if any. */
export async function reservationOf(taxId: string, year: number, awb: string): Promise<AwbReservation | undefined> {
  const holder = quotaHolder(checkTaxId(taxId));
  if (!holder) return undefined;
  const res = await reservations().get({ holder, year, awb }).go({ consistent: true });
  return (res.data as AwbReservation | null) ?? undefined;
}
