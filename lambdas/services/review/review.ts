import { createHash } from 'node:crypto';
import { keysToRemember } from './fingerprint';
import type { Principal } from '#core/auth/principal';
import { canAccess } from '#core/auth/principal';
import { Conflict, NotFound, ValidationFailed } from '#core/errors';
import { decisionEvidence, isVisible, type BatchRecord, type ProcessedResult, type StoredItem } from '#core/manifests/model';
import { manifestView, type ProcessedProduct } from '#core/manifests/views';
import { calculateLines, calculatedFields } from '#core/customs/landed-cost';
import { productInPesos, rateOfShown, usdToArs } from '#core/customs/exchange-rate';
import { argentineDate, taxRulesAt } from '#core/customs/tax-rules';
import { importedDutySource, rateStatuses, tariffRatesOf, vatAt } from '#core/customs/tariff-rates';
import { customsChannel, shipmentChannel } from '#core/customs/channel';
import { channelRules } from '#core/customs/channel-rules';
import { toCents, toNumber } from '#core/customs/money';
import { classifyInputOf } from '#core/tariff/classifier';
import { reviewCauses, reviewSummaryAfter, reviewThreshold } from '#core/review/queue';
import { offlineClassifierInForce } from '#infra/tariff/classifier-port';
import { normalizeNcm, type TariffRow } from '#core/tariff/table';
import { now } from '#infra/clock';
import { openListCursor } from '#infra/cursors';
import { getBatch, getStoredItems, itemsOfAwb, listAllBatches } from '#infra/entities/manifests';
import { applyReview, clearReviewWrites, getMemory, listReviewDecisions, withCursor, writeGroupRecords, type MemoryRecord, type ReviewDecisionRecord } from '#infra/entities/review';
import { blobs } from '#infra/blobs';
import { loadTariffTable } from '#infra/tariff/table-source';
import { maxIndexReviews, partOfKey, readHashesOf, readPartOf, resultsIndex, revisedIndex, writeIndex, writePart } from '../pipeline/results-store';
import { closed } from '../manifests/intake';
import { requireBatch } from '../manifests/tracking';
import { accountNames } from '../auth/account-names';
import { decisionView } from './decision-view';

/**
 * The broker's review of a processed batch (issue 33): the products the customs channel sends to
 * document review (A) or inspection (RO), or whose tariff code is below the review threshold, and
 * the broker's correction of a product's NCM, which recomputes its shipment with the calculation
 * code of the pipeline and keeps who decided what and when.
 */

const badCursor = () => new ValidationFailed({ cursor: ['Is not a cursor this list answered; leave it out to start from the first page.'] });

/**
 * Whether a stored product line is in the queue, read off its text (channel, confidence, risk flags) so a
 * page of a 100,000-item batch is found without parsing every product.
 */
function lineNeedsReview(line: string): boolean {
  const channel = /"customs_channel":"(A|RO)"/.test(line);
  if (channel || line.includes('"risk_flags":[{')) return true;
  const m = /"classification_confidence":(null|[0-9.eE+-]+)/.exec(line);
  return !m || m[1] === 'null' || Number(m[1]) < reviewThreshold;
}

/**
 * A finished, visible batch the caller may read (a broker any account's), by batch id or the
 * caller's manifest number; for a writer (`settle`), a group decision's records left unwritten by a
 * crash are written first.
 */
export async function reviewableBatch(principal: Principal, manifest: string, settle = false): Promise<BatchRecord & { finishedRunId: string }> {
  let batch = await requireBatch(principal, manifest);
  if (settle && batch.reviewWrites && canAccess(principal, batch.accountId)) {
    await settleGroupWrites(batch.batchId, batch.reviewWrites);
    batch = (await getBatch(batch.batchId)) ?? batch;
  }
  if (!canAccess(principal, batch.accountId)) throw new NotFound(`No manifest or batch ${manifest} in your account.`);
  if (batch.status !== 'completed' || !batch.finishedRunId) {
    throw new Conflict(`Manifest ${batch.manifestNumber} (batch ${batch.batchId}) is ${batch.status} at ${batch.progress}%; it can be reviewed once processed.`, {
      error: 'processing_incomplete',
      batch_id: batch.batchId,
      status: batch.status,
      progress: batch.progress,
    });
  }
  return batch as BatchRecord & { finishedRunId: string };
}

/** The batch's items of one AWB, in item-key order (what a correction computes again). */
async function itemsOfShipment(batch: BatchRecord, awb: string): Promise<StoredItem[]> {
  const found = await itemsOfAwb(batch.accountId, awb);
  return found.filter((it) => it.batchId === batch.batchId).sort((a, b) => (a.itemKey < b.itemKey ? -1 : a.itemKey > b.itemKey ? 1 : 0));
}

/** Candidates shown beside a product: the table's best rows for what the partner declared. */
const candidatesShown = 3;

export interface ReviewQuery {
  cursor?: string;
  perPage: number;
}

/**
 * One page of the batch's review queue, in item-key order from after `cursor` (the last item key
 * of the page before). Only the parts of the results from the cursor on are read, and only until
 * the page is full; `total` is counted off the lines' text.
 */
/** What a review answer's meta says of its batch: the flight, the batch and its courier by name (issue 40: never an account number alone). */
export async function batchMeta(batch: BatchRecord) {
  const names = await accountNames([batch.accountId]);
  return {
    batch_id: batch.batchId,
    manifest_number: batch.manifestNumber,
    closed_at: batch.closedAt ?? null,
    account_id: batch.accountId,
    account_name: names.get(batch.accountId) ?? null,
  };
}

export async function reviewQueue(principal: Principal, manifest: string, q: ReviewQuery) {
  const batch = await reviewableBatch(principal, manifest);
  // The cursor (signed) holds the last item key of the page before; opened once the batch is the caller's.
  const after = await openListCursor(q.cursor);
  const runId = batch.finishedRunId;
  const index = await resultsIndex(batch.batchId, runId);
  const page: ProcessedProduct[] = [];
  let more = false;
  const first = index.parts.findIndex((p) => !after || p.last > after);
  for (let n = first < 0 ? index.parts.length : first; n < index.parts.length && !more; n++) {
    for (const line of await readPartOf(batch.batchId, runId, index, n)) {
      if (!lineNeedsReview(line)) continue;
      const p = JSON.parse(line) as ProcessedProduct;
      if (after && p.item_key <= after) continue;
      if (page.length === q.perPage) {
        more = true;
        break;
      }
      page.push(p);
    }
  }
  // The candidates come from the offline classifier of the table in force, the pipeline's own.
  const [items, classifier] = await Promise.all([getStoredItems(batch.batchId, page.map((p) => p.item_key)), offlineClassifierInForce()]);
  const today = argentineDate(now());
  const data = page.map((p) => {
    const it = items.get(p.item_key);
    const input = it ? classifyInputOf(it.data) : { description: p.description ?? undefined };
    return {
      ...p,
      review_causes: reviewCauses(p),
      declared_code: it?.data.hsCode ?? null,
      candidates: classifier.candidates(input, candidatesShown).map((c) => ({
        ncm_code: c.row.ncm,
        description: c.row.description,
        duty_rate: c.row.duty_rate,
        vat_rate: vatAt(c.row.ncm, today).rate,
        score: Math.round(c.score * 1000) / 1000,
        matched_words: c.matched,
      })),
    };
  });
  return {
    batch,
    data,
    meta: {
      per_page: q.perPage,
      cursor: q.cursor ?? null,
      next_cursor: more && page.length ? page[page.length - 1].item_key : null,
      review_threshold: reviewThreshold,
      /** Products not yet decided by a broker, as the batch summary counts them (null for results written before issue 40). */
      products_awaiting: batch.summary?.review_pending ?? null,
    },
  };
}

export interface ClassificationChange {
  awb: string;
  ncmCode: string;
  reason: string;
  itemKey?: string;
}

/** Attempts at a correction when another one (or a close, or a run) moves the batch under it. */
const attempts = 4;

/** The channel reasons a product carries, told from its regime reasons by their rule id. */
const channelRuleIds = new Set(channelRules.map((r) => r.id));
const isChannelReason = (reason: string) => channelRuleIds.has(reason.split(':')[0]);

/**
 * PUT /v1/couriers/manifests/{manifest}/products/{awb}/classification: the broker confirms or
 * corrects one product's NCM. Its shipment is computed again (duties, taxes, channel) with the
 * pipeline's calculation code; only the parts of the results that hold the shipment are written
 * anew (under a revision id, the others pointed at), then the batch moves to them with its summary
 * in one transaction with the decision record, conditional on the batch not having moved. A retry
 * of the same decision changes nothing.
 */
export async function correctClassification(principal: Principal, manifest: string, change: ClassificationChange) {
  const { ncm, row } = await decidedRow(change.ncmCode);
  return onOpenBatch(principal, manifest, 'correction', (batch) => tryCorrection(principal, batch, change, ncm, row));
}

/** The NCM a broker decided, as a row of the tariff table in force; 422 naming `ncm_code` when it is not one. */
export async function decidedRow(ncmCode: string) {
  const ncm = normalizeNcm(ncmCode);
  if (!ncm) throw new ValidationFailed({ ncm_code: ['Must be an 8-digit NCM, e.g. 6109.10.00 or 61091000.'] });
  const table = await loadTariffTable();
  const row = table.rows.find((r) => r.ncm === ncm);
  if (!row) throw new ValidationFailed({ ncm_code: [`${ncm} is not a row of the tariff table in force.`] });
  return { ncm, row, tableVersion: table.version };
}

/**
 * Applies a decision to the batch as it is now (processed, not closed, a crashed group decision's
 * records written first), reading it again when another decision, a close or a run moved it under
 * the write, up to `attempts` times, then 409.
 */
export async function onOpenBatch<T>(principal: Principal, manifest: string, what: string, apply: (batch: BatchRecord & { finishedRunId: string }) => Promise<T | 'moved'>): Promise<T> {
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const batch = await reviewableBatch(principal, manifest, true);
    if (batch.closedAt) throw closed(batch, 'broker');
    const outcome = await apply(batch);
    if (outcome !== 'moved') return outcome;
  }
  throw new Conflict(`The batch changed while the ${what} was written; send it again.`);
}

async function tryCorrection(principal: Principal, batch: BatchRecord & { finishedRunId: string }, change: ClassificationChange, ncm: string, row: TariffRow) {
  const runId = batch.finishedRunId;
  const items = await itemsOfShipment(batch, change.awb);
  if (!items.length) throw new NotFound(`No AWB ${change.awb} in batch ${batch.batchId}.`);
  const target = change.itemKey ? items.find((it) => it.itemKey === change.itemKey) : items.length === 1 ? items[0] : undefined;
  if (!target) {
    const which = items.map((it) => it.itemKey).join(', ');
    throw new ValidationFailed({
      item_key: [change.itemKey ? `AWB ${change.awb} has no product ${change.itemKey}; its products: ${which}.` : `AWB ${change.awb} has ${items.length} products; name one: ${which}.`],
    });
  }
  const index = await resultsIndex(batch.batchId, runId);
  const keys = new Set(items.map((it) => it.itemKey));
  const partsOf = [...new Set(items.map((it) => partOfKey(index, it.itemKey)).filter((n) => n >= 0))];
  const parts = await Promise.all(partsOf.map(async (n) => ({ n, lines: await readPartOf(batch.batchId, runId, index, n) })));
  const before = new Map<string, ProcessedProduct>();
  for (const part of parts) for (const line of part.lines) {
    const p = JSON.parse(line) as ProcessedProduct;
    if (keys.has(p.item_key)) before.set(p.item_key, p);
  }
  const old = before.get(target.itemKey);
  if (!old) throw new NotFound(`AWB ${change.awb} of batch ${batch.batchId} has no processed product ${target.itemKey}.`);
  // The same decision again (a retried request): nothing to write.
  if (old.review && old.ncm_code === ncm && old.review.reason === change.reason) return answer(batch, old, old, false);

  const at = now();
  const revision = (batch.reviewRevision ?? 0) + 1;
  const decidedBy = principal.email ?? principal.tokenName;
  const review = { revision, ncm_code_before: old.ncm_code, ncm_code: ncm, reason: change.reason, decided_by: decidedBy, decided_at: at.toISOString() };
  // A decision that changes only the reason (the same code) changes no figure: nothing is computed again.
  const reasonOnly = old.review !== undefined && old.ncm_code === ncm;
  const after = reasonOnly
    ? new Map([[target.itemKey, { ...old, classification_evidence: decisionEvidence(review), review }]])
    : recompute(change.awb, items, before, new Map([[target.itemKey, { ncm, row, tableVersion: (await loadTariffTable()).version, review }]]), at);

  const base = runId.replace(/\.r\d+-[0-9a-f]{8}$/, '');
  const newRun = `${base}.r${revision}-${createHash('sha256').update(JSON.stringify([target.itemKey, ncm, change.reason, revision])).digest('hex').slice(0, 8)}`;
  // Such a decision is kept in the index while it holds fewer than maxIndexReviews of them; otherwise the parts are copied.
  const held = Object.keys(index.reviews ?? {}).filter((k) => k !== target.itemKey).length;
  if (reasonOnly && held < maxIndexReviews) {
    await writeIndex(batch.batchId, newRun, revisedIndex(runId, index, new Set(), { [target.itemKey]: review }));
  } else {
    await Promise.all(
      parts.map(async (part) =>
        writePart(
          batch.batchId,
          newRun,
          part.n,
          part.lines.map((line) => {
            const k = (JSON.parse(line) as ProcessedProduct).item_key;
            return after.has(k) ? JSON.stringify(after.get(k)) : line;
          }),
          await readHashesOf(batch.batchId, runId, index, part.n),
        ),
      ),
    );
    await writeIndex(batch.batchId, newRun, revisedIndex(runId, index, new Set(parts.map((p) => p.n))));
  }

  let delta = 0n;
  for (const [k, p] of after) delta += toCents(p.amount_to_pay ?? 0) - toCents(before.get(k)?.amount_to_pay ?? 0);
  const total = toCents(batch.summary?.amount_to_pay ?? 0) + delta;
  const rate = batch.summary?.exchange_rate;
  const summary = {
    ...batch.summary,
    amount_to_pay: toNumber(total),
    // The total in pesos again at the summary's rate: the USD total converted, never a sum of converted parts.
    ...(rate ? { amount_to_pay_ars: toNumber(usdToArs(total, rateOfShown(rate).rate)) } : {}),
    ...reviewSummaryAfter(batch.summary, before, after),
  };
  const corrected = after.get(target.itemKey)!;

  const input = classifyInputOf(target.data);
  const memoryKeys = keysToRemember(target.data);
  const known = await Promise.all(memoryKeys.map((k) => getMemory(batch.accountId, k.key)));
  const decision: ReviewDecisionRecord = {
    revision,
    itemKey: target.itemKey,
    awb: change.awb,
    ncmCode: ncm,
    ...(old.ncm_code ? { ncmCodeBefore: old.ncm_code } : {}),
    reason: change.reason,
    decidedBy,
    decidedAt: review.decided_at,
    runId: newRun,
    ...(old.customs_duty !== null ? { dutyBefore: old.customs_duty } : {}),
    ...(corrected.customs_duty !== null ? { dutyAfter: corrected.customs_duty } : {}),
    ...(old.customs_channel ? { channelBefore: old.customs_channel } : {}),
    ...(corrected.customs_channel ? { channelAfter: corrected.customs_channel } : {}),
  };
  const memories = memoryKeys.map((k) => ({
    accountId: batch.accountId,
    fingerprint: k.key,
    match: k.match,
    ncmCode: ncm,
    dutyRate: row.duty_rate,
    decidedBy,
    decidedAt: review.decided_at,
    batchId: batch.batchId,
    awb: change.awb,
    revision,
    ...(input.description ?? input.name ? { description: (input.description ?? input.name)!.slice(0, 500) } : {}),
    ...(input.hsCode ? { hsCode: input.hsCode.slice(0, 40) } : {}),
    ...(target.data.productLink ? { productLink: target.data.productLink.slice(0, 500) } : {}),
  }));
  const applied = await applyReview(batch, { runId: newRun, summary, at: review.decided_at }, decision, memories, known.filter((m) => !m).length);
  if (applied === 'conflict') return 'moved' as const;
  const moved = (await getBatch(batch.batchId))!;
  return answer(moved, old, corrected, true);
}

function answer(batch: BatchRecord, before: ProcessedProduct, after: ProcessedProduct, changed: boolean) {
  const figures = (p: ProcessedProduct) => ({
    ncm_code: p.ncm_code,
    classification_source: p.classification_source,
    customs_duty: p.customs_duty,
    vat: p.vat,
    amount_to_pay: p.amount_to_pay,
    customs_channel: p.customs_channel,
  });
  return {
    changed,
    data: {
      batch_id: batch.batchId,
      manifest_number: batch.manifestNumber,
      awb_number: after.awb_number,
      item_key: after.item_key,
      revision: after.review?.revision ?? batch.reviewRevision ?? 0,
      before: changed ? figures(before) : null,
      product: after,
      summary: { amount_to_pay: batch.summary?.amount_to_pay ?? 0, currency: batch.summary?.currency ?? 'USD' },
    },
  };
}

/** A broker's decision on one product, as `recompute` applies it. */
export interface Decided {
  ncm: string;
  row: TariffRow;
  tableVersion: string | null;
  review: NonNullable<ProcessedResult['review']>;
}

/**
 * The shipment's products again with some products' NCM decided by the broker: the same
 * calculation (`calculateLines`) and channel rules as the pipeline's calculations stage, the
 * other products with the rates and confidence they had.
 */
export function recompute(awb: string, items: readonly StoredItem[], before: ReadonlyMap<string, ProcessedProduct>, decided: ReadonlyMap<string, Decided>, at: Date): Map<string, ProcessedProduct> {
  const rules = taxRulesAt(at);
  const date = argentineDate(at);
  const present = items.filter((it) => before.has(it.itemKey));
  const ratesOf = new Map(
    [...decided].map(([k, d]) => [k, tariffRatesOf({ ncm: d.ncm, duty_rate: d.row.duty_rate, duty_source: d.row.duty_source ?? importedDutySource(d.tableVersion), statistics_fee_rate: rules.statistics_fee_rate, date })]),
  );
  const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
  const calc = calculateLines(
    awb,
    present.map((it) => {
      const p = before.get(it.itemKey)!;
      const b = (p.breakdown ?? {}) as Record<string, unknown>;
      const mine = decided.get(it.itemKey);
      return {
        itemKey: it.itemKey,
        data: it.data,
        regime: p.regime as 'P' | 'C' | 'X' | undefined,
        taxIdValid: p.tax_id_valid === true,
        dutyRate: mine ? mine.row.duty_rate : (num(b.duty_rate) ?? 0),
        vatRate: mine ? ratesOf.get(it.itemKey)!.vat.rate : num(b.vat_rate),
      };
    }),
    rules,
  );
  const channels = present.map((it) => {
    const p = before.get(it.itemKey)!;
    return customsChannel({
      awb,
      regime: calc.regime,
      taxIdValid: p.tax_id_valid ?? false,
      classificationConfidence: decided.has(it.itemKey) ? 1 : (p.classification_confidence ?? 0),
      fob_usd: calc.totals.fob,
      cif_usd: calc.totals.cif,
      prohibited: p.regime === 'X',
    });
  });
  const channel = shipmentChannel(channels);
  const out = new Map<string, ProcessedProduct>();
  for (const it of present) {
    const p = before.get(it.itemKey)!;
    const b = calc.products.get(it.itemKey)!;
    const mine = decided.get(it.itemKey);
    out.set(it.itemKey, {
      ...p,
      ...(mine
        ? {
            ncm_code: mine.ncm,
            classification_confidence: 1,
            classification_source: 'broker' as const,
            classification_evidence: decisionEvidence(mine.review),
            tariff_rates: rateStatuses(ratesOf.get(it.itemKey)!),
            review: mine.review,
          }
        : {}),
      ...calculatedFields(b),
      // Its pesos again at the rate the product already names (none while its batch waits for one).
      ...(p.exchange_rate !== undefined ? productInPesos({ ...p, ...calculatedFields(b) }, p.exchange_rate ? rateOfShown(p.exchange_rate) : null) : {}),
      customs_channel: channel.channel,
      reasons: [...p.reasons.filter((r) => !isChannelReason(r)), ...channel.reasons],
    });
  }
  return out;
}

/** One page of the batch's broker decisions, newest first. */
export async function reviewDecisions(principal: Principal, manifest: string, cursor: string | undefined, perPage: number) {
  const batch = await requireBatch(principal, manifest);
  const page = await listReviewDecisions(batch.batchId, { cursor: await openListCursor(cursor), limit: perPage });
  if (!page) throw badCursor();
  const { decisions, cursor: next } = page;
  return {
    data: decisions.map((d) => ({
      ...decisionView(d),
      ...(d.groupId ? { group_id: d.groupId, group_size: d.groupSize } : {}),
    })),
    meta: { per_page: perPage, cursor: cursor ?? null, next_cursor: next ?? null },
  };
}

/**
 * GET /v1/couriers/review/batches (broker, admin): every account's visible batches, newest first,
 * a page at a time, with the account they belong to; `status` keeps those in that state.
 */
export async function batchQueue(opts: { cursor?: string; perPage: number; status?: string }) {
  const out: BatchRecord[] = [];
  let cursor: string | null = opts.cursor ?? null;
  // Reads on past the page's size only while filtered rows are missing, at most a few pages.
  for (let reads = 0; reads < 5 && out.length < opts.perPage; reads++) {
    const from = cursor;
    const res = await withCursor(() => listAllBatches({ cursor: from, limit: opts.perPage - out.length }));
    if (!res) throw badCursor();
    out.push(...res.batches.filter((b) => isVisible(b) && (!opts.status || b.status === opts.status)));
    cursor = res.cursor;
    if (!cursor) break;
  }
  const names = await accountNames(out.map((b) => b.accountId));
  return {
    data: out.map((b) => ({ ...manifestView(b), account_id: b.accountId, account_name: names.get(b.accountId) ?? null, reviewed: b.reviewRevision ?? 0 })),
    meta: { per_page: opts.perPage, cursor: opts.cursor ?? null, next_cursor: cursor },
  };
}

/**
 * Writes a group decision's records from storage and clears the batch's mark: after the commit,
 * and by whoever next finds the mark left by a crash between the two (the writes are puts of the
 * same items, so doing them twice changes nothing).
 */
export async function settleGroupWrites(batchId: string, writes: NonNullable<BatchRecord['reviewWrites']>): Promise<void> {
  const body = await blobs().get(writes.key);
  if (body) {
    const { decisions, memories } = JSON.parse(body.toString('utf8')) as { decisions: ReviewDecisionRecord[]; memories: MemoryRecord[] };
    await writeGroupRecords(batchId, decisions, memories);
  }
  await clearReviewWrites(batchId, writes.revision);
}
