import type { BatchRecord, BatchStatus, ChunkSetRecord, DecisionEntry, DecisionSegment, ProcessedResult, StoredItem } from './model';
import { liveProgress, stageNames, stageProgress } from '../pipeline/stages';
import { chunkProgress, chunkUploadHours } from './model';
import type { RiskFlag } from '../customs/risk-rules';
import type { ProductPesos } from '../customs/exchange-rate';

/** The 202 answer of spec 4.3 (also replayed word for word, with 200, for a repeated key). */
export function queuedAnswer(a: {
  key: string;
  manifestNumber: string;
  mawbNumber: string;
  batchId: string;
  mode: 'create' | 'update';
  items: number;
  at: string;
  message: string;
}) {
  // A new batch answers batch_id null (spec 4.3); its id is read from the status or list endpoints.
  const batchId = a.mode === 'update' ? a.batchId : null;
  return {
    success: true,
    status: 'queued',
    message: a.message,
    idempotency_key: a.key,
    manifest_number: a.manifestNumber,
    batch_id: batchId,
    mode: a.mode,
    tracking: { manifest_number: a.manifestNumber, batch_id: batchId, mawb_number: a.mawbNumber, items_count: a.items, timestamp: a.at },
  };
}

export type SubmissionStatus = 'queued' | 'processing' | 'completed' | 'failed' | 'receiving';

const submissionStatusOf: Record<BatchStatus, SubmissionStatus> = {
  receiving: 'receiving',
  pending: 'queued',
  processing: 'processing',
  completed: 'completed',
  failed: 'failed',
};

export const submissionStatus = (batch: BatchRecord | undefined): SubmissionStatus => (batch ? submissionStatusOf[batch.status] : 'queued');

/** The webhook status record carries timestamps without a zone suffix (spec conventions); they are UTC. */
export const zoneless = (iso: string) => iso.replace(/Z$/, '');

export function isExpired(set: ChunkSetRecord, now: Date): boolean {
  return set.status === 'receiving' && now.toISOString() >= set.expiresAt;
}

export const chunkSetStatus = (set: ChunkSetRecord, now: Date) => (isExpired(set, now) ? 'expired' : set.status);

export function chunkStatusView(set: ChunkSetRecord, now: Date) {
  const p = chunkProgress(set.totalChunks, set.received);
  return {
    manifest_number: set.manifestNumber,
    status: chunkSetStatus(set, now),
    progress: { total_chunks: set.totalChunks, received_chunks: p.received_chunks, missing_chunks: p.missing_chunks, percentage: p.percentage },
    batch_id: set.status === 'complete' ? set.batchId : null,
    total_items: set.totalItems,
    received_items: set.receivedItems,
    expires_at: set.expiresAt,
    ...(set.failure ? { failure: set.failure } : {}),
  };
}

export const chunkExpiry = (createdAt: Date) => new Date(createdAt.getTime() + chunkUploadHours * 3600_000).toISOString();

const money = (n: number | undefined) => Math.round((n ?? 0) * 100) / 100;

/**
 * The summary's amounts in pesos, in one order of keys (a map read back from DynamoDB comes in any
 * order): the total in pesos and the rate, or, while the batch waits for its rate, nulls and
 * `pesos_pending` with the day and the reason. Nothing for a batch processed before amounts in pesos.
 */
export function summaryPesosView(s: BatchRecord['summary']) {
  if (!s || s.exchange_rate === undefined) return {};
  const rate = s.exchange_rate ? { rate: s.exchange_rate.rate, date: s.exchange_rate.date, source: s.exchange_rate.source } : null;
  return {
    amount_to_pay_ars: s.amount_to_pay_ars ?? null,
    exchange_rate: rate,
    ...(s.pesos_pending ? { pesos_pending: { date: s.pesos_pending.date, reason: s.pesos_pending.reason, cause: s.pesos_pending.cause } } : {}),
  };
}

/** The summary's risk flags in one order of keys (a map read back from DynamoDB comes in any order; the JSON download's name hashes its text). */
function riskFlagsView(r: NonNullable<NonNullable<BatchRecord['summary']>['risk_flags']>) {
  const byRule = Object.fromEntries(Object.entries(r.by_rule).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { products: r.products, total: r.total, by_rule: byRule };
}

/** A manifest record as listed and tracked (spec 2.6). */
export function manifestView(b: BatchRecord) {
  return {
    manifest_id: b.manifestNumber,
    batch_id: b.batchId,
    status: b.status,
    progress: liveProgress(b),
    summary: {
      total_awbs: b.summary?.total_awbs ?? b.awbCount,
      total_articles: b.summary?.total_products ?? b.itemCount,
      personal_items: b.summary?.personal_items ?? 0,
      commercial_items: b.summary?.commercial_items ?? 0,
      prohibited_items: b.summary?.prohibited_items ?? 0,
      amount_to_pay: money(b.summary?.amount_to_pay),
      currency: b.summary?.currency ?? 'USD',
      ...(b.summary?.risk_flags ? { risk_flags: riskFlagsView(b.summary.risk_flags) } : {}),
      ...summaryPesosView(b.summary),
    },
    mawb_number: b.mawbNumber,
    closed_at: b.closedAt ?? null,
    created_at: b.createdAt,
    updated_at: b.updatedAt,
  };
}

export function batchStatusView(requested: string, b: BatchRecord | undefined) {
  if (!b) return { manifest_id: requested, batch_id: null, status: 'not_found', progress: 0, can_download: false };
  return { manifest_id: b.manifestNumber, batch_id: b.batchId, status: b.status, progress: liveProgress(b), can_download: b.status === 'completed' && b.progress === 100 };
}

/** The 423 body of spec 7.2. */
export function closedBody(b: BatchRecord) {
  return { closed_at: b.closedAt, manifest_number: b.manifestNumber, batch_id: b.batchId };
}

export function decisionView(entry: DecisionEntry, segment: DecisionSegment) {
  const [line, key, awb, decision, reason] = entry;
  return {
    item_key: key,
    awb_number: awb,
    decision,
    reason,
    item_index: line,
    chunk_number: segment.chunk ?? null,
    submission: segment.runId,
    decided_at: segment.at,
  };
}

/** A product with its customs results (spec 2.6 processed product, 4.5 detail); null until processed. */
export function productView(it: StoredItem, r: ProcessedProduct | undefined) {
  return {
    awb_number: it.awb,
    tracking_number: it.data.trackingNumber ?? null,
    item_key: it.itemKey,
    consignee: it.data.consigneeName,
    product_description: it.data.itemDescription ?? it.data.itemName ?? null,
    quantity: it.data.amountOfItems ?? null,
    fob_value: it.data.fobValueUsd ?? null,
    country_of_manufacture: it.data.originCountry,
    ncm_code: r?.ncm_code ?? null,
    regime: r?.regime ?? null,
    cif_value: r?.cif_value ?? null,
    ddp_value: r?.ddp_value ?? null,
    customs_duty: r?.customs_duty ?? null,
    customs_channel: r?.customs_channel ?? null,
    quota: { tax_id: it.data.consigneeIdNumber ?? null, quota: r?.quota ?? null },
  };
}

/** GET .../pipeline-status (spec 4.3): the four stages, overall progress and the summary. */
export function pipelineStatusView(b: BatchRecord) {
  const p = b.pipeline;
  return {
    manifest_id: b.manifestNumber,
    batch_id: b.batchId,
    status: b.status,
    overall_progress: liveProgress(b),
    pipeline_steps: stageNames.map((name) => {
      const s = p?.stages[name];
      return { key: name, status: s?.status ?? 'pending', progress: s ? stageProgress(s) : 0, pages_done: s?.done ?? 0, pages: s?.pages ?? 0 };
    }),
    run_id: p?.runId ?? b.lastRunId ?? null,
    started_at: p?.startedAt ?? null,
    finished_at: p?.finishedAt ?? null,
    error: p?.error ?? null,
    summary: {
      total_products: b.summary?.total_products ?? b.itemCount,
      regime_breakdown: { personal: b.summary?.personal_items ?? 0, commercial: b.summary?.commercial_items ?? 0, prohibited: b.summary?.prohibited_items ?? 0 },
      amount_to_pay: money(b.summary?.amount_to_pay),
      currency: b.summary?.currency ?? 'USD',
      ...summaryPesosView(b.summary),
    },
  };
}

/** The item fields a processed product is shown with; kept with its result. */
export interface ProductFields {
  trackingNumber: string | null;
  description: string | null;
  consignee: string;
  taxId: string | null;
  fob: number | null;
  /** The code the partner declared (`hsCode`), as sent. */
  declaredCode?: string | null;
}

export function productFields(d: StoredItem['data']): ProductFields {
  return {
    trackingNumber: d.trackingNumber ?? null,
    description: d.itemDescription ?? d.itemName ?? null,
    consignee: d.consigneeName,
    taxId: d.consigneeIdNumber ?? null,
    fob: d.fobValueUsd ?? null,
    declaredCode: d.hsCode ?? null,
  };
}

/**
 * The two tariff codes a broker must choose between (a declared NCM kept against the classifier's
 * answer), one reason each: the product's `ncm_code` is the first.
 */
function candidateReasons(candidates: ProcessedResult['classification_candidates']): string[] {
  return (candidates ?? []).map((c, k) =>
    k === 0
      ? `tariff code ${c.ncm_code} as declared, kept for review (confidence ${c.confidence}): ${c.reason}`
      : `tariff code ${c.ncm_code} as the classifier suggests (${c.source}, confidence ${c.confidence}), for review: ${c.reason}`,
  );
}

/** A processed product of the download (spec 2.6), with the reasons behind each figure. */
export function processedProductView(it: { awb: string; itemKey: string; item: ProductFields }, r: ProcessedResult | undefined) {
  return {
    awb_number: it.awb,
    tracking_number: it.item.trackingNumber,
    item_key: it.itemKey,
    description: it.item.description,
    consignee: it.item.consignee,
    tax_id: r?.tax_id_formatted ?? it.item.taxId,
    tax_id_valid: r?.tax_id_valid ?? null,
    quota: r?.quota ?? null,
    regime: r?.regime ?? null,
    /** The code the partner declared, as sent (what a review group joins by, with the description). */
    declared_code: it.item.declaredCode ?? null,
    ncm_code: r?.ncm_code ?? null,
    classification_confidence: r?.classification_confidence ?? null,
    classification_source: r?.classification_source ?? null,
    /** What decided the code: the words the table's row met, the nomenclature text, a broker's decision cited, the declared code kept. */
    classification_evidence: r?.classification_reason ?? null,
    fob_value: it.item.fob,
    cif_value: r?.cif_value ?? null,
    customs_duty: r?.customs_duty ?? null,
    statistics_fee: r?.statistics_fee ?? null,
    vat: r?.vat ?? null,
    ddp_value: r?.ddp_value ?? null,
    amount_to_pay: r?.amount_to_pay ?? null,
    currency: r?.currency ?? 'USD',
    customs_channel: r?.customs_channel ?? null,
    reasons: [...(r?.regime_reasons ?? []), ...candidateReasons(r?.classification_candidates), ...(r?.channel_reasons ?? [])],
    breakdown: r?.breakdown ?? null,
    tariff_rates: r?.tariff_rates ?? null,
    ...(r?.review ? { review: r.review } : {}),
  };
}

/**
 * A processed product as the results keep it; its amounts in pesos (`<amount>_ars`, `exchange_rate`:
 * core/customs/exchange-rate.ts `productInPesos`) put on by the pipeline's finish at the run's rate;
 * `risk_flags`, the risk rules' flags
 * (core/customs/risk-rules.ts), put on by the pipeline's finish when any rule flags it.
 */
export type ProcessedProduct = ReturnType<typeof processedProductView> & { risk_flags?: readonly RiskFlag[] } & Partial<ProductPesos>;
