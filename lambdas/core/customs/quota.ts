import { checkTaxId, quotaHolder } from './tax-id';
import { quotaYear, regimeRulesAt } from './regime-rules';

/**
 * The rules of the personal-shipment quota (domain/customs-ar.md): who holds it, how many slots a
 * year has, what a counter as found answers, and which years a release or the history looks at.
 * The ledger that stores the counters is infra/entities/quota.ts.
 */

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

/** A holder's counter of one year: `used`, and the slots (`quotaSlot`) holding it. */
export interface QuotaCounter {
  used: number;
  awbs: readonly string[];
}

/** Years the history count sums, this one included. */
export const historyYears = 10;

/** An AWB's slot in a counter: per account, so two partners' equal AWB strings stay apart. */
export const quotaSlot = (accountId: number, awb: string): string => `${accountId}|${awb}`;

/** Personal shipments a holder may make in a year: `limit` when given, else the regime rules in force at `at`. */
export const quotaLimit = (at: Date, limit?: number): number => limit ?? regimeRulesAt(at).personal_shipments_per_year;

export const quotaRemaining = (limit: number, used: number): number => Math.max(0, limit - used);

/** The ledger key of a tax id; throws for an id that cannot hold a quota (invalid). */
export function holderOf(taxId: string): string {
  const holder = quotaHolder(checkTaxId(taxId));
  if (!holder) throw new RangeError(`not a valid tax id: ${JSON.stringify(taxId)}`);
  return holder;
}

/** The ledger key of a tax id, or null for one that cannot hold a quota. */
export const holderOrNull = (taxId: string): string | null => quotaHolder(checkTaxId(taxId));

/**
 * What a counter as found answers for the slot without a write: the slot is held already, or the
 * year is used up; undefined while a slot is free for it (only a write can take it).
 */
export function answerFrom(counter: QuotaCounter, slot: string, limit: number): ReserveQuotaResult | undefined {
  if (counter.awbs.includes(slot)) return { reserved: true, alreadyReserved: true, used: counter.used, remaining: quotaRemaining(limit, counter.used) };
  if (counter.used >= limit) return { reserved: false, alreadyReserved: false, used: counter.used, remaining: 0 };
  return undefined;
}

/** The years a tax-id correction gives a slot back in: this one and the last (a shipment processed around New Year). */
export const releaseYears = (at: Date): number[] => [quotaYear(at), quotaYear(at) - 1];

/** The years the history count sums: the last `historyYears`, this one first. */
export const historyYearsAt = (at: Date): number[] => Array.from({ length: historyYears }, (_, k) => quotaYear(at) - k);
