import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { defineEntity, service } from './entity';
import { documentClient } from '../dynamo';
import { now } from '../clock';
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
 * - Reserving is ONE TransactWriteItems: the reservation is put under `attribute_not_exists` and
 *   the counter gets `used + 1` under `used < limit`. Both happen or neither: a retry or a re-run
 *   of the same AWB finds its reservation and counts nothing; concurrent reservations for one
 *   holder are serialized by DynamoDB on the counter and never pass the limit.
 * - Releasing (a tax-id correction moves the AWB's slot) is the mirror transaction: delete the
 *   reservation if it exists and take 1 off the counter.
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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const maxAttempts = 30;

type Outcome = { ok: true } | { ok: false; failed: number[] };

/** Runs a transaction, retrying while it only lost a race (TransactionConflict); answers which condition failed. */
async function transact(items: Record<string, unknown>[]): Promise<Outcome> {
  for (let attempt = 1; ; attempt++) {
    try {
      await documentClient().send(new TransactWriteCommand({ TransactItems: items as never }));
      return { ok: true };
    } catch (err) {
      const e = err as { name?: string; CancellationReasons?: { Code?: string }[] };
      if (e.name !== 'TransactionCanceledException') throw err;
      const codes = (e.CancellationReasons ?? []).map((r) => r.Code ?? 'None');
      const failed = codes.flatMap((c, i) => (c === 'ConditionalCheckFailed' ? [i] : []));
      if (failed.length) return { ok: false, failed };
      if (attempt >= maxAttempts) throw err;
      // Another transaction held one of the items: back off with jitter and try again.
      await sleep(Math.min(200, 5 * attempt) + Math.random() * 20 * attempt);
    }
  }
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
  const put = reservations()
    .create({ holder, year: input.year, awb: input.awb, taxId: digits, accountId: input.accountId, reservedAt: at })
    .params();
  const add = counters()
    .update({ holder, year: input.year })
    .add({ used: 1 })
    .set({ updatedAt: at })
    .where(({ used }, { notExists, lt }) => `${notExists(used)} OR ${lt(used, limit)}`)
    .params();
  const outcome = await transact([{ Put: put }, { Update: add }]);
  const used = await usedOf(holder, input.year);
  const remaining = Math.max(0, limit - used);
  if (outcome.ok) return { reserved: true, alreadyReserved: false, used, remaining };
  if (outcome.failed.includes(0)) return { reserved: true, alreadyReserved: true, used, remaining };
  return { reserved: false, alreadyReserved: false, used, remaining: 0 };
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
  const del = reservations()
    .delete({ holder, year, awb })
    .where(({ awb: a }, { exists }) => exists(a))
    .params();
  const sub = counters()
    .update({ holder, year })
    .subtract({ used: 1 })
    .set({ updatedAt: at.toISOString() })
    .where(({ used }, { gt }) => gt(used, 0))
    .params();
  const outcome = await transact([{ Delete: del }, { Update: sub }]);
  if (!outcome.ok && outcome.failed.includes(0)) return { released: false, used: await usedOf(holder, year) };
  if (!outcome.ok) {
    // The counter was already 0 (it cannot be, unless edited by hand): drop the reservation alone.
    const again = await transact([{ Delete: del }]);
    return { released: again.ok, used: await usedOf(holder, year) };
  }
  return { released: true, used: await usedOf(holder, year) };
}

export interface AwbReservation {
  holder: string;
  taxId: string;
  year: number;
  awb: string;
  accountId: number;
  reservedAt: string;
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
