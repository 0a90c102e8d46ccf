import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionalFailure } from './entity';
import { counterModel, quotaCounters } from './quota/quota-counter';
import { documentClient } from '../dynamo';
import { config } from '#shared/config';
import { now } from '../clock';
import {
  answerFrom,
  historyYearsAt,
  holderOf,
  holderOrNull,
  quotaLimit,
  quotaRemaining,
  quotaSlot,
  releaseYears,
  type QuotaCounter,
  type QuotaStatus,
  type ReserveQuotaResult,
} from '#core/customs/quota';

/**
 * The quota ledger: personal shipments per person per calendar year, kept by the service itself
 * (no registry connection). One counter item per (holder, year) with the set of AWBs holding its
 * slots, every write conditional on it, so a retry counts nothing and the limit holds under
 * concurrency. How reserving, batching and turns work, and why: docs/partners/customs.md, "The quota ledger". The
 * rules (holder, limit, what a counter answers, which years) are core/customs/quota.ts.
 */

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

const member = (input: ReserveQuotaInput) => quotaSlot(input.accountId, input.awb);

/** A reservation's answer and, when it found the holder's year used up, that counter. */
interface Reservation {
  result: ReserveQuotaResult;
  usedUp?: QuotaCounter;
}

/** What a counter as found answers for `input` without a write (`answerFrom`). */
const answerFor = (counter: QuotaCounter, input: ReserveQuotaInput) => answerFrom(counter, member(input), limitOf(input));

/** The answer from a counter as found, keeping the counter when its year is used up (see `reserveInTurns`). */
const foundAnswer = (counter: QuotaCounter, result: ReserveQuotaResult, input: ReserveQuotaInput): Reservation =>
  counter.used >= limitOf(input) ? { result, usedUp: counter } : { result };

/**
 * Takes one of the year's personal-shipment slots of `taxId` for `awb`, once: a second call for
 * the same AWB answers `alreadyReserved` and counts nothing; a call when the year is used up
 * answers `reserved: false`.
 */
export async function reserveQuota(input: ReserveQuotaInput): Promise<ReserveQuotaResult> {
  return (await reserveOne(input)).result;
}

async function reserveOne(input: ReserveQuotaInput): Promise<Reservation> {
  const holder = holderOf(input.taxId);
  const limit = limitOf(input);
  const slot = member(input);
  try {
    const res = await quotaCounters()
      .update({ holder, year: input.year })
      .add({ used: 1, awbs: [slot] })
      .set({ updatedAt: input.at.toISOString() })
      .where(({ used, awbs }, { notExists, lt, notContains }) => `(${notExists(used)} OR ${lt(used, limit)}) AND ${notContains(awbs, slot)}`)
      .go({ response: 'updated_new' });
    const used = res.data.used ?? 1;
    return { result: { reserved: true, alreadyReserved: false, used, remaining: quotaRemaining(limit, used) } };
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
  }
  // The condition failed: the AWB holds a slot, or the year was used up when it was checked.
  const counter = await counterOf(holder, input.year);
  return foundAnswer(counter, answerFor(counter, input) ?? { reserved: false, alreadyReserved: false, used: counter.used, remaining: 0 }, input);
}

/** Counter updates per transaction (DynamoDB's limit on TransactWriteItems). */
const transactionSize = 100;
/** Transactions sent again after a cancellation before each remaining AWB falls back to `reserveQuota`. */
const transactionAttempts = 5;

/** What a reservation expects of its counter: none yet, or `used` slots none of which is this AWB's. */
type Expected = { used: number } | null;

/**
 * Reserves many AWBs of different holders (one AWB per holder in a call) and answers in order,
 * each exactly as `reserveQuota` would. Up to 100 counters go in one TransactWriteItems, each
 * update conditional on the state it expects (see the module's notes), `concurrency`
 * transactions at a time.
 */
export async function reserveQuotas(inputs: readonly ReserveQuotaInput[], opts: { concurrency?: number } = {}): Promise<ReserveQuotaResult[]> {
  return (await reservations(inputs, opts)).map((r) => r.result);
}

async function reservations(inputs: readonly ReserveQuotaInput[], opts: { concurrency?: number }): Promise<Reservation[]> {
  const holders = inputs.map((i) => holderOf(i.taxId));
  if (new Set(holders).size !== holders.length) throw new RangeError('reserveQuotas takes one AWB per holder per call');
  const out = new Array<Reservation>(inputs.length);
  const groups: number[][] = [];
  for (let i = 0; i < inputs.length; i += transactionSize) groups.push(Array.from({ length: Math.min(transactionSize, inputs.length - i) }, (_, k) => i + k));
  let next = 0;
  const worker = async () => {
    while (next < groups.length) await reserveGroup(inputs, holders, groups[next++], out);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(opts.concurrency ?? 4, groups.length)) }, worker));
  return out;
}

const limitOf = (input: ReserveQuotaInput) => quotaLimit(input.at, input.limit);

/**
 * One write of a transaction: the counter as it must become, if it is as expected. A holder
 * without a counter gets it whole (a conditional put: DynamoDB Local spends less on it than on an
 * update); a counter with `used` slots, none of them this AWB's, gets the AWB and one more.
 */
function reservationWrite(input: ReserveQuotaInput, holder: string, expected: Expected) {
  const slot = member(input);
  const TableName = config.tableName();
  const Key = quotaCounters().get({ holder, year: input.year }).params<{ Key: Record<string, string> }>().Key;
  const at = input.at.toISOString();
  const ReturnValuesOnConditionCheckFailure = 'ALL_OLD' as const;
  if (expected === null) {
    const Item = { ...Key, holder, year: input.year, used: 1, awbs: new Set([slot]), updatedAt: at, __edb_e__: counterModel.entity, __edb_v__: counterModel.version };
    return { Put: { TableName, Item, ConditionExpression: 'attribute_not_exists(#pk)', ExpressionAttributeNames: { '#pk': 'pk' }, ReturnValuesOnConditionCheckFailure } };
  }
  return {
    Update: {
      TableName,
      Key,
      UpdateExpression: 'SET #updatedAt = :at ADD #used :one, #awbs :slots',
      ConditionExpression: '#used = :expected AND NOT contains(#awbs, :slot)',
      ExpressionAttributeNames: { '#used': 'used', '#awbs': 'awbs', '#updatedAt': 'updatedAt' },
      ExpressionAttributeValues: { ':one': 1, ':slots': new Set([slot]), ':at': at, ':expected': expected.used, ':slot': slot },
      ReturnValuesOnConditionCheckFailure,
    },
  };
}

interface CancellationReason {
  Code?: string;
  Item?: Record<string, unknown>;
}

/** The counter a cancellation reason carries (as DynamoDB sends it, or already converted), or null when there is none. */
function counterIn(item: Record<string, unknown> | undefined): QuotaCounter | null {
  if (!item) return null;
  const used = item.used as { N?: string } | number | undefined;
  const awbs = item.awbs as { SS?: string[] } | Set<string> | string[] | undefined;
  return {
    used: typeof used === 'number' ? used : Number(used?.N ?? 0),
    awbs: awbs instanceof Set || Array.isArray(awbs) ? [...awbs] : (awbs?.SS ?? []),
  };
}

/** Cancellations that say nothing about the counter itself: the transaction is sent again. */
const retryableReasons = new Set(['None', 'TransactionConflict', 'ThrottlingError', 'ProvisionedThroughputExceeded', 'RequestLimitExceeded']);

async function reserveGroup(inputs: readonly ReserveQuotaInput[], holders: readonly string[], group: readonly number[], out: Reservation[]): Promise<void> {
  const expected = new Map<number, Expected>(group.map((i) => [i, null]));
  let pending = [...group];
  for (let attempt = 1; pending.length && attempt <= transactionAttempts; attempt++) {
    try {
      await documentClient().send(new TransactWriteCommand({ TransactItems: pending.map((i) => reservationWrite(inputs[i], holders[i], expected.get(i)!)) }));
      for (const i of pending) {
        const used = (expected.get(i)?.used ?? 0) + 1;
        out[i] = { result: { reserved: true, alreadyReserved: false, used, remaining: quotaRemaining(limitOf(inputs[i]), used) } };
      }
      return;
    } catch (err) {
      const reasons = (err as { name?: string; CancellationReasons?: CancellationReason[] }).CancellationReasons;
      if ((err as { name?: string }).name !== 'TransactionCanceledException' || !reasons || reasons.length !== pending.length) throw err;
      const again: number[] = [];
      let contended = false;
      pending.forEach((i, k) => {
        const code = reasons[k]?.Code ?? 'None';
        if (code !== 'ConditionalCheckFailed') {
          if (!retryableReasons.has(code)) throw err;
          contended ||= code !== 'None';
          again.push(i);
          return;
        }
        // The counter as the failed condition found it: the outcome, or what to expect next time.
        const counter = counterIn(reasons[k].Item);
        const answer = counter && answerFor(counter, inputs[i]);
        if (answer) out[i] = foundAnswer(counter, answer, inputs[i]);
        else {
          expected.set(i, counter ? { used: counter.used } : null);
          again.push(i);
        }
      });
      pending = again;
      if (contended) await new Promise((r) => setTimeout(r, 20 * 2 ** attempt * Math.random()));
    }
  }
  // Counters that kept changing under the transactions: one conditional update each.
  for (const i of pending) out[i] = await reserveOne(inputs[i]);
}

/**
 * Reserves the AWBs of many holders, each holder's in the order given (`lanes`: one list per
 * holder, none shared), and answers each AWB as `reserveQuota` would. Each turn reserves the next
 * AWB of every holder at once (`reserveQuotas`). Once a holder's counter is found used up, the
 * rest of its lane is answered from that counter with no write: an AWB in its set holds its slot
 * (`alreadyReserved`), any other finds the year used up. Nothing is counted that way, so the limit
 * and the once-per-AWB rule hold as for every write. The answers stand as of the refusal: a slot
 * given back after it (a tax-id correction) goes to the next reservation, not to this lane.
 */
export async function reserveInTurns(lanes: readonly (readonly ReserveQuotaInput[])[], opts: { concurrency?: number } = {}): Promise<ReserveQuotaResult[][]> {
  const out = lanes.map((lane) => new Array<ReserveQuotaResult>(lane.length));
  const next = lanes.map(() => 0);
  const usedUp = new Array<QuotaCounter | undefined>(lanes.length);
  for (;;) {
    const turn: { lane: number; k: number }[] = [];
    // A lane's used-up counter answers its next AWBs; the first it cannot answer goes in this turn.
    lanes.forEach((lane, l) => {
      while (next[l] < lane.length) {
        const k = next[l]++;
        const counter = usedUp[l];
        const known = counter && answerFor(counter, lane[k]);
        if (!known) return void turn.push({ lane: l, k });
        out[l][k] = known;
      }
    });
    if (!turn.length) return out;
    const reserved = await reservations(turn.map(({ lane, k }) => lanes[lane][k]), opts);
    turn.forEach(({ lane, k }, n) => {
      out[lane][k] = reserved[n].result;
      usedUp[lane] = reserved[n].usedUp;
    });
  }
}

async function counterOf(holder: string, year: number): Promise<QuotaCounter> {
  const data = (await quotaCounters().get({ holder, year }).go({ consistent: true })).data;
  return { used: data?.used ?? 0, awbs: [...(data?.awbs ?? [])] };
}

/**
 * Gives the AWB's slot of `taxId`'s year back (a tax-id correction: the slot moves to the new
 * tax id when the pipeline runs again). Answers whether there was a slot to give back.
 */
export async function releaseQuota(input: { taxId: string; year: number; awb: string; accountId: number; at?: Date }): Promise<{ released: boolean; used: number }> {
  const holder = holderOrNull(input.taxId);
  if (!holder) return { released: false, used: 0 };
  const slot = quotaSlot(input.accountId, input.awb);
  let released = false;
  try {
    await quotaCounters()
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
  const keep = input.keepTaxId ? holderOrNull(input.keepTaxId) : null;
  let released = 0;
  const seen = new Set<string>();
  for (const taxId of input.fromTaxIds) {
    const holder = taxId ? holderOrNull(taxId) : null;
    if (!holder || holder === keep || seen.has(holder)) continue;
    seen.add(holder);
    for (const y of releaseYears(at)) if ((await releaseQuota({ taxId: taxId!, year: y, awb: input.awb, accountId: input.accountId, at })).released) released++;
  }
  return released;
}

/** The year's ledger of a tax id: slots used, left and the shipments holding them. */
export async function quotaOf(taxId: string, year: number, limit?: number): Promise<QuotaStatus> {
  const holder = holderOf(taxId);
  const max = quotaLimit(now(), limit);
  const counter = await counterOf(holder, year);
  return { used: counter.used, remaining: quotaRemaining(max, counter.used), records: counter.awbs.length };
}

/** Every personal shipment the ledger recorded for the tax id's holder over the last ten years. */
export async function quotaHistoryCount(taxId: string, at: Date = now()): Promise<number> {
  const holder = holderOf(taxId);
  const res = await quotaCounters()
    .get(historyYearsAt(at).map((year) => ({ holder, year })))
    .go({ attributes: ['used'] });
  return res.data.reduce((n, c) => n + (c.used ?? 0), 0);
}

/** Whether the AWB of `accountId` holds one of the tax id's slots of the year. */
export async function holdsQuota(taxId: string, year: number, awb: string, accountId: number): Promise<boolean> {
  const holder = holderOrNull(taxId);
  if (!holder) return false;
  return (await counterOf(holder, year)).awbs.includes(quotaSlot(accountId, awb));
}

/** The slots (`accountId|awb`) holding a tax id's year, and how many are used. */
export async function quotaSlotsOf(taxId: string, year: number): Promise<{ used: number; slots: string[] }> {
  const counter = await counterOf(holderOf(taxId), year);
  return { used: counter.used, slots: [...counter.awbs] };
}
