import type { Principal } from '#core/auth/principal';
import { ValidationFailed } from '#core/errors';
import { toCents, toNumber } from '#core/customs/money';
import type { BatchRecord } from '#core/manifests/model';
import { isVisible } from '#core/manifests/model';
import type { DocumentRecord } from '#core/documents/model';
import { tallyReview, type ReviewTally } from '#core/review/queue';
import type { ProcessedProduct } from '#core/manifests/views';
import { listBatchesSince, setReviewCounts } from '#infra/entities/manifests';
import { now } from '#infra/clock';
import { mapConcurrent } from '#shared/concurrency';
import { productLines, resultsIndex } from '../pipeline/results-store';
import { documentsVisibleTo } from '../documents/list';
import { accountNames } from '../auth/account-names';

/**
 * The broker's inbox (issue 40): what needs action across every courier, with counts. Documents
 * awaiting validation and approval; batches processed and not closed, grouped by flight (MAWB),
 * oldest first, each with the products awaiting review, the amount to pay they carry (what the
 * decisions move) and the risk flags; batches still processing. Batches are read from a window of
 * creation dates (`since`, 90 days back by default), never the whole history.
 */

/** How far back the inbox reads batches when `since` is not given. */
export const inboxWindowDays = 90;

export interface InboxQuery {
  since?: string;
  cursor?: string;
  perPage: number;
}

const badCursor = () => new ValidationFailed({ cursor: ['Is not a cursor this list answered; leave it out to start from the first page.'] });

/** Products flagged by the risk rules, as the batch summary counts them (0 before the rules ran, or with them off). */
const riskFlagsOf = (summary: BatchRecord['summary']): number => summary?.risk_flags?.products ?? 0;

/**
 * A processed batch's review counts: as its summary keeps them, or counted from its results for a
 * batch processed before the summary carried them (and kept, so it is counted once).
 */
async function reviewCountsOf(b: BatchRecord & { finishedRunId: string }): Promise<{ pending: number; atStake: number }> {
  if (b.summary?.review_pending !== undefined) return { pending: b.summary.review_pending, atStake: b.summary.review_at_stake ?? 0 };
  const index = await resultsIndex(b.batchId, b.finishedRunId);
  const t: ReviewTally = { pending: 0, atStake: 0n };
  for await (const line of productLines(b.batchId, b.finishedRunId, index)) tallyReview(t, JSON.parse(line) as ProcessedProduct);
  const counts = { review_pending: t.pending, review_at_stake: toNumber(t.atStake) };
  await setReviewCounts(b.batchId, b.finishedRunId, counts);
  return { pending: counts.review_pending, atStake: counts.review_at_stake };
}

function documentCounts(docs: readonly DocumentRecord[], names: ReadonlyMap<number, string | null>) {
  const byAccount = new Map<number, { awaiting_validation: number; awaiting_approval: number; oldest_at: string | null }>();
  let validation = 0;
  let approval = 0;
  let oldest: string | null = null;
  for (const d of docs) {
    if (d.state !== 'uploaded' && d.state !== 'validated') continue;
    const row = byAccount.get(d.accountId) ?? { awaiting_validation: 0, awaiting_approval: 0, oldest_at: null };
    if (d.state === 'uploaded') (row.awaiting_validation++, validation++);
    else (row.awaiting_approval++, approval++);
    if (!row.oldest_at || d.createdAt < row.oldest_at) row.oldest_at = d.createdAt;
    if (!oldest || d.createdAt < oldest) oldest = d.createdAt;
    byAccount.set(d.accountId, row);
  }
  return {
    awaiting_validation: validation,
    awaiting_approval: approval,
    oldest_at: oldest,
    by_account: [...byAccount]
      .sort((a, b) => ((a[1].oldest_at ?? '') < (b[1].oldest_at ?? '') ? -1 : 1))
      .map(([id, row]) => ({ account_id: id, account_name: names.get(id) ?? null, ...row })),
  };
}

/** GET /v1/couriers/review/inbox (broker, admin). */
export async function inbox(principal: Principal, q: InboxQuery) {
  const since = q.since ?? new Date(now().getTime() - inboxWindowDays * 86_400_000).toISOString();
  const [batches, docs] = await Promise.all([listBatchesSince(since), documentsVisibleTo(principal)]);
  const visible = batches.filter(isVisible);
  const open = visible.filter((b): b is BatchRecord & { finishedRunId: string } => b.status === 'completed' && !b.closedAt && Boolean(b.finishedRunId));
  const processing = visible.filter((b) => !b.closedAt && (b.status === 'pending' || b.status === 'processing'));
  const counts = await mapConcurrent(open, 4, reviewCountsOf);
  const names = await accountNames([...visible.map((b) => b.accountId), ...docs.map((d) => d.accountId)]);

  const flights = new Map<string, { mawb_number: string; oldest_at: string; products_awaiting: number; at_stake: bigint; risk_flags: number; batches: ReturnType<typeof batchRow>[] }>();
  open.forEach((b, k) => {
    const row = batchRow(b, counts[k], names);
    const f = flights.get(b.mawbNumber) ?? { mawb_number: b.mawbNumber, oldest_at: b.createdAt, products_awaiting: 0, at_stake: 0n, risk_flags: 0, batches: [] };
    f.products_awaiting += row.products_awaiting;
    f.at_stake += toCents(row.at_stake);
    f.risk_flags += row.risk_flags;
    f.batches.push(row);
    flights.set(b.mawbNumber, f);
  });
  const ordered = [...flights.values()].sort((a, b) => (a.oldest_at < b.oldest_at ? -1 : a.oldest_at > b.oldest_at ? 1 : a.mawb_number < b.mawb_number ? -1 : 1));
  const from = q.cursor === undefined ? 0 : Number(q.cursor);
  if (!Number.isInteger(from) || from < 0 || from > ordered.length) throw badCursor();
  const page = ordered.slice(from, from + q.perPage);
  return {
    data: {
      documents: documentCounts(docs, names),
      review: {
        products_awaiting: counts.reduce((s, c) => s + c.pending, 0),
        at_stake: toNumber(counts.reduce((s, c) => s + toCents(c.atStake), 0n)),
        batches_open: open.length,
        flights: ordered.length,
        risk_flags: open.reduce((s, b) => s + riskFlagsOf(b.summary), 0),
        batches_processing: processing.length,
      },
      flights: page.map((f) => ({ ...f, at_stake: toNumber(f.at_stake) })),
    },
    meta: { since, per_page: q.perPage, cursor: q.cursor ?? null, next_cursor: from + q.perPage < ordered.length ? String(from + q.perPage) : null },
  };
}

function batchRow(b: BatchRecord, c: { pending: number; atStake: number }, names: ReadonlyMap<number, string | null>) {
  return {
    batch_id: b.batchId,
    manifest_number: b.manifestNumber,
    account_id: b.accountId,
    account_name: names.get(b.accountId) ?? null,
    created_at: b.createdAt,
    products: b.summary?.total_products ?? b.itemCount,
    products_awaiting: c.pending,
    at_stake: c.atStake,
    amount_to_pay: b.summary?.amount_to_pay ?? 0,
    risk_flags: riskFlagsOf(b.summary),
    reviewed: b.reviewRevision ?? 0,
  };
}
