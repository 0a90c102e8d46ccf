import { defineEntity, isConditionalFailure, service } from './entity';
import { now } from '../clock';
import { checkTaxId, quotaHolder } from '../../core/customs/tax-id';
import { quotaYear, regimeRulesAt } from '../../core/customs/regime-rules';

/**
 * The quota ledger: personal shipments per person per calendar year (domain/customs-ar.md: "without
 * a connection to the registry, the service keeps its own ledger").
 *
 * - One counter per (holder, year): `used`, and the set `awbs` of the shipments holding the year's
 *   slots (each as `<account>|<awb>`, so two partners' equal AWB strings stay apart).
 * - The holder is the person, whichever id names them: a person's CUIL/CUIT and their DNI share
 *   one quota (`quotaHolder` in core/customs/tax-id.ts); a company's CUIT is its own holder.
 * - Reserving is ONE conditional update of the counter: the AWB joins the set and `used` grows by
 *   1, only if the set does not hold it yet and `used < limit`. A retry or a re-run of the same
 *   AWB finds it in the set and counts nothing; concurrent reservations for one holder are
 *   serialized by DynamoDB on that one item and never pass the limit. The counter is the only
 *   record: no second write can be lost between two (measured: a transaction with a reservation
 *   record made web services the slowest stage on DynamoDB Local, which runs transactions one at
 *   a time).
 * - Releasing (a tax-id correction moves the AWB's slot) is the mirror, under the condition that
 *   the set holds the AWB.
 * - The history count sums the holder's counters of the last ten years.
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


export interface ReserveQuotaInput {
  /** CUIT, CUIL or DNI, digits (hyphens, dots and spaces are dropped). */
  taxId: string;
  year: number;
  awb: string;
  accountId: number;
  at: Date;
  /** Personal shipments per year; default: the regime rules in force at `at`. */
  limit?: number;
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
  /** Shipments holding the year's slots. */
  records: number;
}

const member = (accountId: number, awb: string) => `${accountId}|${awb}`;

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
  const slot = member(input.accountId, input.awb);
  try {
    const res = await counters()
      .update({ holder, year: input.year })
      .add({ used: 1, awbs: [slot] })
      .set({ updatedAt: input.at.toISOString() })
      .where(({ used, awbs }, { notExists, lt, notContains }) => `(${notExists(used)} OR ${lt(used, limit)}) AND ${notContains(awbs, slot)}`)
      .go({ response: 'updated_new' });
    const used = (res.data.used as number | undefined) ?? 1;
    return { reserved: true, alreadyReserved: false, used, remaining: Math.max(0, limit - used) };
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
  }
  const counter = await counterOf(holder, input.year);
  if (counter.awbs.includes(slot)) return { reserved: true, alreadyReserved: true, used: counter.used, remaining: Math.max(0, limit - counter.used) };
  return { reserved: false, alreadyReserved: false, used: counter.used, remaining: 0 };
}

/** Reserves many AWBs of different holders (one AWB per holder in a call), `concurrency` at a time; answers in order. */
export async function reserveQuotas(inputs: readonly ReserveQuotaInput[], opts: { concurrency?: number } = {}): Promise<ReserveQuotaResult[]> {
  const holders = inputs.map((i) => holderOf(i.taxId));
  if (new Set(holders).size !== holders.length) throw new RangeError('reserveQuotas takes one AWB per holder per call');
  const out = new Array<ReserveQuotaResult>(inputs.length);
  let next = 0;
  const worker = async () => {
    while (next < inputs.length) {
      const i = next++;
      out[i] = await reserveQuota(inputs[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(opts.concurrency ?? 32, inputs.length)) }, worker));
  return out;
}

async function counterOf(holder: string, year: number): Promise<{ used: number; awbs: string[] }> {
  const data = (await counters().get({ holder, year }).go({ consistent: true })).data;
  return { used: (data?.used as number | undefined) ?? 0, awbs: [...((data?.awbs as string[] | undefined) ?? [])] };
}

/**
 * Gives the AWB's slot of `taxId`'s year back (a tax-id correction: the slot moves to the new
 * tax id when the pipeline runs again). Answers whether there was a slot to give back.
 */
export async function releaseQuota(input: { taxId: string; year: number; awb: string; accountId: number; at?: Date }): Promise<{ released: boolean; used: number }> {
  const holder = quotaHolder(checkTaxId(input.taxId));
  if (!holder) return { released: false, used: 0 };
  const slot = member(input.accountId, input.awb);
  let released = false;
  try {
    await counters()
      .update({ holder, year: input.year })
      .delete({ awbs: [slot] })
      .subtract({ used: 1 })
      .set({ updatedAt: (input.at ?? now()).toISOString() })
      .where(({ awbs }, { contains }) => contains(awbs, slot))
      .go();
    released = true;
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
  }
  return { released, used: (await counterOf(holder, input.year)).used };
}

/**
 * Gives back the slot the AWB holds for `accountId` under any of `fromTaxIds` other than
 * `keepTaxId`, in this year or the last (a shipment processed around New Year): what a tax-id
 * correction does before the pipeline reserves again under the new tax id.
 */
export async function releaseAwbQuota(input: { awb: string; accountId: number; fromTaxIds: readonly (string | null | undefined)[]; keepTaxId?: string; at?: Date }): Promise<number> {
  const at = input.at ?? now();
  const keep = input.keepTaxId ? quotaHolder(checkTaxId(input.keepTaxId)) : null;
  const year = quotaYear(at);
  let released = 0;
  const seen = new Set<string>();
  for (const taxId of input.fromTaxIds) {
    const holder = taxId ? quotaHolder(checkTaxId(taxId)) : null;
    if (!holder || holder === keep || seen.has(holder)) continue;
    seen.add(holder);
    for (const y of [year, year - 1]) if ((await releaseQuota({ taxId: taxId!, year: y, awb: input.awb, accountId: input.accountId, at })).released) released++;
  }
  return released;
}

/** The year's ledger of a tax id: slots used, left and the shipments holding them. */
export async function quotaOf(taxId: string, year: number, limit?: number): Promise<QuotaStatus> {
  const holder = holderOf(taxId);
  const max = limit ?? regimeRulesAt(now()).personal_shipments_per_year;
  const counter = await counterOf(holder, year);
  return { used: counter.used, remaining: Math.max(0, max - counter.used), records: counter.awbs.length };
}

export const historyYears = 10;

/** Every personal shipment the ledger recorded for the tax id's holder over the last ten years. */
export async function quotaHistoryCount(taxId: string, at: Date = now()): Promise<number> {
  const holder = holderOf(taxId);
  const year = quotaYear(at);
  const res = await counters()
    .get(Array.from({ length: historyYears }, (_, k) => ({ holder, year: year - k })))
    .go({ attributes: ['used'] });
  return res.data.reduce((n, c) => n + ((c.used as number | undefined) ?? 0), 0);
}

/** Whether the AWB of `accountId` holds one of the tax id's slots of the year. */
export async function holdsQuota(taxId: string, year: number, awb: string, accountId: number): Promise<boolean> {
  const holder = quotaHolder(checkTaxId(taxId));
  if (!holder) return false;
  return (await counterOf(holder, year)).awbs.includes(member(accountId, awb));
}
