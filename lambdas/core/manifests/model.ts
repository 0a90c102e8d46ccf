import type { DutySource, TariffRateStatuses } from '../customs/tariff-rates';
import { createHash } from 'node:crypto';
import type { ItemDecision } from './identity';
import type { ManifestItem } from './submission';
import type { PipelineState } from '../pipeline/stages';
import type { RateShown } from '../customs/exchange-rate';
import type { ClassificationCandidate } from '../tariff/classifier';

/**
 * A batch is one import of a manifest (spec 2.6: `manifest_id` may repeat, every import is its
 * own batch). `receiving` is the state of a chunked upload still missing chunks; the spec's
 * states pending / processing / completed follow, plus `failed` when the pipeline gives up.
 */
export const batchStatuses = ['receiving', 'pending', 'processing', 'completed', 'failed'] as const;
export type BatchStatus = (typeof batchStatuses)[number];

/**
 * A batch is visible to the routes (list, status, download, client info, ...) once every item of
 * the submission that created it is written: until then it is `receiving` and hidden, so a crash
 * in the middle of writing never shows a partial batch.
 */
export const isVisible = (b: Pick<BatchRecord, 'status'>): boolean => b.status !== 'receiving';

export const chunkSetStatuses = ['receiving', 'complete', 'failed'] as const;
export type ChunkSetStatus = (typeof chunkSetStatuses)[number];

/** The manifest root fields kept on the batch besides its numbers. */
export interface ManifestHeader {
  airline?: string;
  flightNumber?: string;
  aircraftRegistration?: string;
  originAirport?: string;
  customsBrokerCode?: string;
}

/** Decisions of one submission (or one chunk of it), appended to the batch's log. */
export interface DecisionSegment {
  id: string;
  runId: string;
  mode: 'create' | 'update';
  chunk?: number;
  at: string;
  count: number;
  counts: Record<Lowercase<ItemDecision>, number>;
}

/** One line of the decision log: [line in the payload, item key, AWB, decision, reason]. */
export type DecisionEntry = [number, string, string, ItemDecision, string];

export interface BatchRecord {
  batchId: string;
  accountId: number;
  manifestNumber: string;
  mawbNumber: string;
  courier: string;
  header?: ManifestHeader;
  status: BatchStatus;
  progress: number;
  itemCount: number;
  awbCount: number;
  lastRunId?: string;
  finishedRunId?: string;
  closedAt?: string;
  closedBy?: string;
  /** How many broker corrections (services/review) the batch's results have taken; each is one decision record. */
  reviewRevision?: number;
  /** The revision whose `manifest.reviewed` the close of the review announced (one event per review). */
  reviewAnnounced?: number;
  /**
   * A group decision's records still to be written (issue 40): set with the batch's move to the
   * decided results, cleared once every product's decision record and memory is in the table; a
   * reader that finds it writes them first (they are in storage under `key`).
   */
  reviewWrites?: { revision: number; key: string };
  /** Written when a pipeline run finishes: regime counts and amount to pay. */
  summary?: { personal_items?: number; commercial_items?: number; prohibited_items?: number; amount_to_pay?: number; currency?: string; total_awbs?: number; total_products?: number; review_pending?: number; review_at_stake?: number; risk_flags?: { products: number; total: number; by_rule: Record<string, number> }; amount_to_pay_ars?: number | null; exchange_rate?: RateShown | null; pesos_pending?: { date: string; reason: string; cause: string } };
  /** The latest run's stage states (lambdas/core/pipeline/stages.ts). */
  pipeline?: PipelineState;
  createdAt: string;
  updatedAt: string;
}

export interface StoredItem {
  batchId: string;
  accountId: number;
  itemKey: string;
  awb: string;
  hash: string;
  runId: string;
  decision: 'CREATE' | 'UPDATE';
  line: number;
  data: ManifestItem;
  createdAt: string;
  updatedAt: string;
}

/** What the pipeline's stages find for one item (each stage adds its part). */
export interface ProcessedResult {
  regime?: 'P' | 'C' | 'X';
  regime_reasons?: string[];
  prohibited?: string | null;
  tax_id?: string | null;
  tax_id_formatted?: string | null;
  tax_id_valid?: boolean;
  tax_id_reason?: string;
  /** Why the AWB is reported in manifest.invalid_cuit_detected, or null. */
  tax_id_alert?: string | null;
  quota?: number | null;
  ncm_code?: string;
  duty_rate?: number;
  /** Where the duty rate comes from (tariff-rates.ts). */
  duty_source?: DutySource;
  /** The duty, statistics fee and VAT the calculation used, each with its status (verified, unverified, imported). */
  tariff_rates?: TariffRateStatuses;
  classification_confidence?: number;
  classification_source?: ClassificationSourceName;
  classification_reason?: string;
  /** The declared code and the classifier's, each with its reason, when a broker must choose (classifier.ts `keepDeclared`; two entries). */
  classification_candidates?: ClassificationCandidate[];
  cif_value?: number;
  ddp_value?: number;
  customs_duty?: number;
  statistics_fee?: number;
  vat?: number;
  amount_to_pay?: number;
  currency?: string;
  breakdown?: Record<string, unknown>;
  customs_channel?: 'V' | 'A' | 'RO';
  channel_reasons?: string[];
  /** A broker's decision on the tariff code (PUT .../products/{awb}/classification). */
  review?: ClassificationReview;
}

/** Where a product's tariff code comes from; `broker`: a broker confirmed or corrected it, or the partner-code memory did. */
export type ClassificationSourceName = 'partner' | 'ai' | 'offline' | 'hs-fallback' | 'broker';

/** Who decided a product's tariff code, what and when (kept on the product and as a decision record). */
export interface ClassificationReview {
  revision: number;
  ncm_code_before: string | null;
  ncm_code: string;
  reason: string;
  decided_by: string;
  decided_at: string;
}

/** A broker's decision as the product's classification evidence cites it. */
export const decisionEvidence = (r: ClassificationReview) => `Decided by ${r.decided_by} on ${r.decided_at.slice(0, 10)} (revision ${r.revision}): ${r.reason}`;

export interface ChunkSetRecord {
  accountId: number;
  baseKey: string;
  batchId: string;
  mode: 'create' | 'update';
  courier: string;
  manifestNumber: string;
  mawbNumber: string;
  totalChunks: number;
  totalItems: number;
  received: number[];
  receivedItems: number;
  /** Chunks whose items are written (the batch is released once all are). */
  written: number[];
  status: ChunkSetStatus;
  failure?: string;
  createdAt: string;
  updatedAt: string;
  expiresAt: string;
  ttl?: number;
}

/**
 * The id of the batch a submission creates, derived from the account and the submission's key,
 * so a retried or taken-over submission writes into the same batch instead of a second one.
 */
export function batchIdFor(accountId: number, submissionKey: string): string {
  return 'BT' + createHash('sha256').update(`${accountId}|${submissionKey}`).digest('hex').slice(0, 20).toUpperCase();
}

export const looksLikeBatchId = (s: string) => /^BT[0-9A-F]{20}$/.test(s);

/** Decisions per stored page; a page record stays far below DynamoDB's 400 KB item limit. */
export const decisionsPerPage = 500;

/** Where entries [offset, offset + limit) of the batch's decision log are stored. */
export function decisionPagesFor(segments: readonly DecisionSegment[], offset: number, limit: number) {
  const refs: { segmentId: string; page: number; from: number; to: number }[] = [];
  let start = 0;
  const end = offset + limit;
  for (const seg of segments) {
    const segEnd = start + seg.count;
    if (segEnd > offset && start < end) {
      const from = Math.max(offset, start) - start;
      const to = Math.min(end, segEnd) - start;
      for (let page = Math.floor(from / decisionsPerPage); page * decisionsPerPage < to; page++) {
        const pageStart = page * decisionsPerPage;
        refs.push({ segmentId: seg.id, page, from: Math.max(from, pageStart) - pageStart, to: Math.min(to, pageStart + decisionsPerPage) - pageStart });
      }
    }
    start = segEnd;
    if (start >= end) break;
  }
  return refs;
}

/** Chunk progress as the spec's answers show it. */
export function chunkProgress(totalChunks: number, received: readonly number[]) {
  const got = new Set(received);
  const missing: number[] = [];
  for (let n = 1; n <= totalChunks; n++) if (!got.has(n)) missing.push(n);
  return {
    received_chunks: totalChunks - missing.length,
    missing_chunks: missing,
    percentage: Math.floor(((totalChunks - missing.length) * 100) / totalChunks),
    is_complete: missing.length === 0,
  };
}

/** How long an incomplete chunked upload waits for its missing chunks. */
export const chunkUploadHours = 24;

/** Formats of the processed-manifest download; `excel` and `xlsx` are the same styled workbook; `ndjson` is one product per line. */
export const downloadFormats = ['json', 'ndjson', 'csv', 'excel', 'xlsx'] as const;
export type DownloadFormat = (typeof downloadFormats)[number];
