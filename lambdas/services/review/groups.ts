import { createHash } from 'node:crypto';
import { keysToRemember } from './fingerprint';
import { decidedRow, onOpenBatch, recompute, reviewableBatch, settleGroupWrites, type Decided } from './review';
import type { Principal } from '#core/auth/principal';
import { NotFound, ValidationFailed } from '#core/errors';
import type { BatchRecord, StoredItem } from '#core/manifests/model';
import type { ProcessedProduct } from '#core/manifests/views';
import { toCents, toNumber } from '#core/customs/money';
import { argentineDate } from '#core/customs/tax-rules';
import { vatAt } from '#core/customs/tariff-rates';
import { awaitsReview, groupKeyOf, reviewCauses, reviewSummaryAfter } from '#core/review/queue';
import { classifyInputOf } from '#core/tariff/classifier';
import type { TariffRow } from '#core/tariff/table';
import { blobs } from '#infra/blobs';
import { now } from '#infra/clock';
import { openListCursor } from '#infra/cursors';
import { getStoredItems } from '#infra/entities/manifests';
import { applyGroupReview, getMemories, type MemoryRecord, type ReviewDecisionRecord } from '#infra/entities/review';
import { offlineClassifierInForce } from '#infra/tariff/classifier-port';
import { readHashesOf, readPartOf, resultsIndex, revisedIndex, writeIndex, writePart, type ResultsIndex } from '../pipeline/results-store';

/**
 * Group decisions (issue 40): the products of a batch's review queue with the same normalized
 * description and the same declared code form a group, and one broker decision applies to every
 * product of it still awaiting review. Each product is recorded as its own decision (who, when,
 * why, its duty and channel before and after) and teaches the partner-code memory, as a single
 * correction does; the batch moves to the decided results in one conditional write.
 */

/** A group's id in paths: a hash of its key (the description can be long and hold any character). */
export const groupIdOf = (key: string) => createHash('sha256').update(key).digest('hex').slice(0, 16);

/** Every product line of the batch's results, parsed, with its part (the queue reads them all to group them). */
async function readAll(batch: BatchRecord & { finishedRunId: string }, index: ResultsIndex) {
  const parts = await Promise.all(index.parts.map((_, n) => readPartOf(batch.batchId, batch.finishedRunId, index, n)));
  return parts.map((lines, n) => ({ n, lines, products: lines.map((l) => JSON.parse(l) as ProcessedProduct) }));
}

/** The declared code of products whose results were written before they carried it (issue 40), from their items. */
async function declaredCodes(batchId: string, products: readonly ProcessedProduct[]): Promise<Map<string, string | null>> {
  const out = new Map<string, string | null>();
  const missing: string[] = [];
  for (const p of products) {
    if (p.declared_code !== undefined) out.set(p.item_key, p.declared_code);
    else missing.push(p.item_key);
  }
  if (missing.length) for (const [k, it] of await getStoredItems(batchId, missing)) out.set(k, it.data.hsCode ?? null);
  return out;
}

interface Group {
  id: string;
  key: string;
  description: string | null;
  declaredCode: string | null;
  products: ProcessedProduct[];
}

/** The queue's products awaiting review, grouped; largest groups first, then by description. */
async function groupsOf(batch: BatchRecord & { finishedRunId: string }, products: readonly ProcessedProduct[]): Promise<Group[]> {
  const waiting = products.filter(awaitsReview);
  const codes = await declaredCodes(batch.batchId, waiting);
  const groups = new Map<string, Group>();
  for (const p of waiting) {
    const declared = codes.get(p.item_key) ?? null;
    const key = groupKeyOf(p.description, declared);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { id: groupIdOf(key), key, description: p.description, declaredCode: declared, products: [] }));
    g.products.push(p);
  }
  return [...groups.values()].sort((a, b) => b.products.length - a.products.length || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

const badCursor = () => new ValidationFailed({ cursor: ['Is not a cursor this list answered; leave it out to start from the first page.'] });

/**
 * GET /v1/couriers/manifests/{manifest}/review/groups: the products awaiting review grouped by
 * normalized description and declared code, largest first, a page at a time (the cursor is the
 * place in that order). Each group: its size, AWBs, the amount its products pay, the codes they
 * carry now, why they are in the queue, and the classifier's candidates for its description.
 */
export async function reviewGroups(principal: Principal, manifest: string, q: { cursor?: string; perPage: number }) {
  const batch = await reviewableBatch(principal, manifest);
  // The cursor (signed) holds a place among the groups; opened once the batch is the caller's.
  const cursor = await openListCursor(q.cursor);
  const index = await resultsIndex(batch.batchId, batch.finishedRunId);
  const all = (await readAll(batch, index)).flatMap((p) => p.products);
  const groups = await groupsOf(batch, all);
  const from = cursor === undefined ? 0 : Number(cursor);
  if (!Number.isInteger(from) || from < 0 || from > groups.length || (cursor !== undefined && !/^\d{1,9}$/.test(cursor))) throw badCursor();
  const page = groups.slice(from, from + q.perPage);
  const classifier = await offlineClassifierInForce();
  const today = argentineDate(now());
  return {
    batch,
    data: page.map((g) => {
      const codes = new Map<string, number>();
      for (const p of g.products) if (p.ncm_code) codes.set(p.ncm_code, (codes.get(p.ncm_code) ?? 0) + 1);
      const causes = new Set(g.products.flatMap((p) => reviewCauses(p)));
      return {
        group_id: g.id,
        description: g.description,
        declared_code: g.declaredCode,
        products: g.products.length,
        awbs: new Set(g.products.map((p) => p.awb_number)).size,
        amount_to_pay: toNumber(g.products.reduce((s, p) => s + toCents(p.amount_to_pay ?? 0), 0n)),
        ncm_codes: [...codes].sort((a, b) => b[1] - a[1]).slice(0, 5).map(([ncm_code, products]) => ({ ncm_code, products })),
        review_causes: [...causes],
        item_keys: g.products.slice(0, 5).map((p) => p.item_key),
        candidates: classifier.candidates({ description: g.description ?? undefined, hsCode: g.declaredCode ?? undefined }, 3).map((c) => ({
          ncm_code: c.row.ncm,
          description: c.row.description,
          duty_rate: c.row.duty_rate,
          vat_rate: vatAt(c.row.ncm, today).rate,
          matched_words: c.matched,
        })),
      };
    }),
    meta: { per_page: q.perPage, cursor: q.cursor ?? null, next_cursor: from + q.perPage < groups.length ? String(from + q.perPage) : null, groups: groups.length },
  };
}

/**
 * PUT /v1/couriers/manifests/{manifest}/review/groups/{group}/classification: one decision for
 * every product of the group still awaiting review. Answers how many changed and the duty and
 * amount to pay moved. A retry finds them decided and changes nothing (`changed: 0`).
 */
export async function decideGroup(principal: Principal, manifest: string, groupId: string, change: { ncmCode: string; reason: string }) {
  const { ncm, row, tableVersion } = await decidedRow(change.ncmCode);
  return onOpenBatch(principal, manifest, 'group decision', (batch) => tryGroup(principal, batch, groupId, { reason: change.reason, ncm, row, tableVersion }));
}

type GroupChange = { ncm: string; row: TariffRow; tableVersion: string | null; reason: string };

async function tryGroup(principal: Principal, batch: BatchRecord & { finishedRunId: string }, groupId: string, change: GroupChange) {
  const runId = batch.finishedRunId;
  const index = await resultsIndex(batch.batchId, runId);
  const parts = await readAll(batch, index);
  const all = parts.flatMap((p) => p.products);
  const group = (await groupsOf(batch, all)).find((g) => g.id === groupId);
  if (!group) return alreadyDecided(batch, all, groupId);

  const at = now();
  const revision = (batch.reviewRevision ?? 0) + 1;
  const decidedBy = principal.email ?? principal.tokenName;
  const review = { revision, ncm_code_before: null as string | null, ncm_code: change.ncm, reason: change.reason, decided_by: decidedBy, decided_at: at.toISOString() };
  const members = new Set(group.products.map((p) => p.item_key));
  const awbs = new Set(group.products.map((p) => p.awb_number));
  const before = new Map(all.filter((p) => awbs.has(p.awb_number)).map((p) => [p.item_key, p]));
  const items = await getStoredItems(batch.batchId, [...before.keys()]);
  const byAwb = new Map<string, StoredItem[]>();
  for (const p of before.values()) {
    const it = items.get(p.item_key);
    if (it) byAwb.set(p.awb_number, [...(byAwb.get(p.awb_number) ?? []), it]);
  }
  const after = new Map<string, ProcessedProduct>();
  for (const awb of awbs) {
    const shipment = byAwb.get(awb) ?? [];
    const decided = new Map<string, Decided>(
      shipment.filter((it) => members.has(it.itemKey)).map((it) => [it.itemKey, { ...change, review: { ...review, ncm_code_before: before.get(it.itemKey)!.ncm_code } }]),
    );
    for (const [k, p] of recompute(awb, shipment, before, decided, at)) after.set(k, p);
  }

  const newRun = `${runId.replace(/\.r\d+-[0-9a-f]{8}$/, '')}.r${revision}-${createHash('sha256').update(JSON.stringify([groupId, change.ncm, change.reason, revision])).digest('hex').slice(0, 8)}`;
  await writeRevisedResults(batch.batchId, runId, newRun, index, parts, after);

  let delta = 0n;
  let dutyMoved = 0n;
  for (const [k, p] of after) {
    delta += toCents(p.amount_to_pay ?? 0) - toCents(before.get(k)?.amount_to_pay ?? 0);
    dutyMoved += toCents(p.customs_duty ?? 0) - toCents(before.get(k)?.customs_duty ?? 0);
  }
  const summary = { ...batch.summary, amount_to_pay: toNumber(toCents(batch.summary?.amount_to_pay ?? 0) + delta), ...reviewSummaryAfter(batch.summary, before, after) };
  const { decisions, memories } = recordsOf(batch, group, items, before, after, { revision, decidedBy, at: review.decided_at, runId: newRun, change });
  const known = await getMemories(batch.accountId, memories.map((m) => m.fingerprint));
  const writesKey = `review/${batch.batchId}/${newRun}/group-decision.json`;
  await blobs().put(writesKey, Buffer.from(JSON.stringify({ decisions, memories })), 'application/json');
  const writes = { revision, key: writesKey };
  const applied = await applyGroupReview(batch, { runId: newRun, summary, at: review.decided_at, revision, writes }, { accountId: batch.accountId, newMemories: memories.filter((m) => !known.has(m.fingerprint)).length });
  if (applied === 'conflict') return 'moved' as const;
  await settleGroupWrites(batch.batchId, writes);
  return {
    changed: true,
    data: {
      batch_id: batch.batchId,
      manifest_number: batch.manifestNumber,
      group_id: groupId,
      revision,
      ncm_code: change.ncm,
      changed: decisions.length,
      awbs: awbs.size,
      customs_duty_moved: toNumber(dutyMoved),
      amount_to_pay_moved: toNumber(delta),
      /** Products that left the review queue: the group's, and others of their shipments whose channel turned green. */
      left_review: [...after].filter(([k, p]) => awaitsReview(before.get(k)!) && !awaitsReview(p)).length,
      summary: { amount_to_pay: summary.amount_to_pay, currency: summary.currency ?? 'USD', review_pending: summary.review_pending ?? null },
    },
  };
}

/** A group no longer awaiting review: decided already (a retry answers nothing changed), or never a group of this batch (404). */
function alreadyDecided(batch: BatchRecord, all: readonly ProcessedProduct[], groupId: string) {
  const decided = all.filter((p) => p.review && groupIdOf(groupKeyOf(p.description, p.declared_code ?? null)) === groupId);
  if (!decided.length) throw new NotFound(`No group ${groupId} awaits review in batch ${batch.batchId}; list the groups again.`);
  return {
    changed: false,
    data: {
      batch_id: batch.batchId,
      manifest_number: batch.manifestNumber,
      group_id: groupId,
      revision: batch.reviewRevision ?? 0,
      ncm_code: decided[0].ncm_code,
      changed: 0,
      awbs: 0,
      customs_duty_moved: 0,
      amount_to_pay_moved: 0,
      left_review: 0,
      summary: { amount_to_pay: batch.summary?.amount_to_pay ?? 0, currency: batch.summary?.currency ?? 'USD', review_pending: batch.summary?.review_pending ?? null },
    },
  };
}

/** The parts holding a changed product written anew under `newRun`, the others pointed at, then the index. */
async function writeRevisedResults(batchId: string, runId: string, newRun: string, index: ResultsIndex, parts: { n: number; lines: string[]; products: ProcessedProduct[] }[], after: ReadonlyMap<string, ProcessedProduct>) {
  const changed = parts.filter((p) => p.products.some((x) => after.has(x.item_key)));
  await Promise.all(
    changed.map(async (part) =>
      writePart(
        batchId,
        newRun,
        part.n,
        part.products.map((x, i) => (after.has(x.item_key) ? JSON.stringify(after.get(x.item_key)) : part.lines[i])),
        await readHashesOf(batchId, runId, index, part.n),
      ),
    ),
  );
  await writeIndex(batchId, newRun, revisedIndex(runId, index, new Set(changed.map((p) => p.n))));
}

function recordsOf(
  batch: BatchRecord,
  group: Group,
  items: ReadonlyMap<string, StoredItem>,
  before: ReadonlyMap<string, ProcessedProduct>,
  after: ReadonlyMap<string, ProcessedProduct>,
  d: { revision: number; decidedBy: string; at: string; runId: string; change: GroupChange },
) {
  const decisions: ReviewDecisionRecord[] = [];
  const memories = new Map<string, MemoryRecord>();
  for (const p of group.products) {
    const old = before.get(p.item_key)!;
    const decided = after.get(p.item_key);
    const item = items.get(p.item_key);
    if (!decided || !item) continue;
    decisions.push({
      revision: d.revision,
      itemKey: p.item_key,
      awb: p.awb_number,
      ncmCode: d.change.ncm,
      ...(old.ncm_code ? { ncmCodeBefore: old.ncm_code } : {}),
      reason: d.change.reason,
      decidedBy: d.decidedBy,
      decidedAt: d.at,
      runId: d.runId,
      ...(old.customs_duty !== null ? { dutyBefore: old.customs_duty } : {}),
      ...(decided.customs_duty !== null ? { dutyAfter: decided.customs_duty } : {}),
      ...(old.customs_channel ? { channelBefore: old.customs_channel } : {}),
      ...(decided.customs_channel ? { channelAfter: decided.customs_channel } : {}),
      groupId: group.id,
      groupSize: group.products.length,
    });
    const input = classifyInputOf(item.data);
    for (const k of keysToRemember(item.data)) {
      if (memories.has(k.key)) continue;
      memories.set(k.key, {
        accountId: batch.accountId,
        fingerprint: k.key,
        match: k.match,
        ncmCode: d.change.ncm,
        dutyRate: d.change.row.duty_rate,
        decidedBy: d.decidedBy,
        decidedAt: d.at,
        batchId: batch.batchId,
        awb: p.awb_number,
        revision: d.revision,
        ...(input.description ?? input.name ? { description: (input.description ?? input.name)!.slice(0, 500) } : {}),
        ...(input.hsCode ? { hsCode: input.hsCode.slice(0, 40) } : {}),
        ...(item.data.productLink ? { productLink: item.data.productLink.slice(0, 500) } : {}),
      });
    }
  }
  return { decisions, memories: [...memories.values()] };
}
