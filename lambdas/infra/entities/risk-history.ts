import { batchGetAll } from '../batch-get';
import { config } from '#shared/config';
import { transactUpdates } from '../transact-chunks';
import { mapConcurrent } from '#shared/concurrency';
import type { ValueHistogram } from '#core/customs/risk-rules';

/**
 * The service's history of declared unit values per NCM, for the under-valuation rule
 * (core/customs/risk-rules.ts): one item per NCM, `pk` `RISKNCM#<8 digits>`, `sk` `VALUES`,
 * holding a count per bin of the value's logarithm (`b<bin>`, at most 601 attributes of a number
 * each: a few KB, far from DynamoDB's 400 KB, however many values it counts) and `n`, the total.
 * A run adds its values with one ADD per NCM, 100 NCMs to a transaction (atomic, concurrent runs
 * add up); `lastRun` makes a repeated finish of the same run add nothing.
 */

const key = (ncm: string) => ({ pk: `RISKNCM#${ncm}`, sk: 'VALUES' });

/** BatchGetItem calls in flight at once (100 NCMs each). */
const readsAtOnce = 8;

/** The histograms of these NCMs (8 digits), by NCM; an NCM without history is missing. One BatchGetItem per 100, up to 8 at once. */
export async function valueHistories(ncms: readonly string[]): Promise<Map<string, ValueHistogram>> {
  const out = new Map<string, ValueHistogram>();
  if (!ncms.length) return out;
  const chunks = Array.from({ length: Math.ceil(ncms.length / 100) }, (_, k) => ncms.slice(k * 100, (k + 1) * 100).map(key));
  const items = (await mapConcurrent(chunks, readsAtOnce, (keys) => batchGetAll(keys))).flat();
  for (const item of items) {
    const ncm = String(item.pk).slice('RISKNCM#'.length);
    const bins = new Map<number, number>();
    for (const [name, value] of Object.entries(item)) if (/^b\d+$/.test(name) && typeof value === 'number') bins.set(Number(name.slice(1)), value);
    out.set(ncm, bins);
  }
  return out;
}

/** One NCM's update: ADD its bins' counts and `n`, SET `lastRun`, unless `lastRun` is this run already. */
function valuesUpdate(ncm: string, bins: ReadonlyMap<number, number>, runId: string) {
  const names: Record<string, string> = { '#n': 'n', '#lastRun': 'lastRun' };
  const values: Record<string, unknown> = { ':run': runId };
  const adds: string[] = [];
  let total = 0;
  for (const [bin, count] of bins) {
    names[`#b${bin}`] = `b${bin}`;
    values[`:b${bin}`] = count;
    adds.push(`#b${bin} :b${bin}`);
    total += count;
  }
  values[':n'] = total;
  return {
    TableName: config.tableName(),
    Key: key(ncm),
    UpdateExpression: `SET #lastRun = :run ADD #n :n, ${adds.join(', ')}`,
    ConditionExpression: 'attribute_not_exists(#lastRun) OR #lastRun <> :run',
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}

/**
 * Adds a run's values (count per bin, by NCM) to the histories, 100 NCMs to a transaction
 * (infra/transact-chunks.ts): a chunk refused because an NCM already holds this run was added
 * before (a repeated call) and is skipped.
 */
export async function addValues(byNcm: ReadonlyMap<string, ReadonlyMap<number, number>>, runId: string): Promise<void> {
  const ncms = [...byNcm.keys()].filter((n) => byNcm.get(n)!.size).sort();
  await transactUpdates(
    ncms.map((ncm) => valuesUpdate(ncm, byNcm.get(ncm)!, runId)),
    { skipConditionFailed: true },
  );
}
