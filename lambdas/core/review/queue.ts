import { channelRules } from '../customs/channel-rules';
import { toCents, toNumber, type Cents } from '../customs/money';

/**
 * What puts a processed product in the broker's review queue (issue 33), and how the queue is
 * grouped and counted (issue 40): pure rules over a product as the results keep it.
 */

/** The review threshold: the `confidence_below` rule of the channel rules. */
export const reviewThreshold = channelRules.flatMap((r) => (r.when.kind === 'confidence_below' ? [r.when.threshold] : [])).reduce((a, b) => Math.max(a, b), 0);

/** Why a product is in the queue, every cause (the console says each in Spanish: test/unit/http/console). */
export const reviewCauseNames = ['channel_a', 'channel_ro', 'low_confidence', 'risk'] as const;
export type ReviewCause = (typeof reviewCauseNames)[number];

/** What of a product the queue reads. */
export interface QueuedProduct {
  customs_channel: string | null;
  classification_confidence: number | null;
  review?: unknown;
  /** The risk rules' flags (core/customs/risk-rules.ts): any puts the product in the queue (`risk`). */
  risk_flags?: readonly unknown[];
}

/** Why a product is in the review queue; empty when it is not. */
export function reviewCauses(p: QueuedProduct): ReviewCause[] {
  const out: ReviewCause[] = [];
  if (p.customs_channel === 'A') out.push('channel_a');
  if (p.customs_channel === 'RO') out.push('channel_ro');
  if ((p.classification_confidence ?? 0) < reviewThreshold) out.push('low_confidence');
  if (p.risk_flags?.length) out.push('risk');
  return out;
}

/** In the queue and not yet decided by a broker: what the inbox counts as awaiting review. */
export function awaitsReview(p: QueuedProduct): boolean {
  return !p.review && reviewCauses(p).length > 0;
}

/** A description as the group key reads it: case, accents, punctuation and spacing folded. */
export function normalizedDescription(text: string | null | undefined): string {
  return (text ?? '')
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/**
 * The group a product is decided with: the same normalized description and the same declared
 * code (its digits; none is its own group key part). Readable, so a broker can see what it joins;
 * kept short enough for a path segment by the caller's encoding.
 */
export function groupKeyOf(description: string | null | undefined, declaredCode: string | null | undefined): string {
  return `${normalizedDescription(description)}|${(declaredCode ?? '').replace(/\D/g, '')}`;
}

/** What the inbox counts of a batch's queue, kept in its summary (money in cents while counted). */
export interface ReviewTally {
  pending: number;
  atStake: Cents;
}

/** Adds (sign 1) or takes away (sign -1) a product's share of the queue's counts. */
export function tallyReview(t: ReviewTally, p: QueuedProduct & { amount_to_pay: number | null }, sign: 1 | -1 = 1): void {
  if (!awaitsReview(p)) return;
  t.pending += sign;
  t.atStake += BigInt(sign) * toCents(p.amount_to_pay ?? 0);
}

/** The summary's review counts moved by products changed from `before` to `after` (by item key). */
export function reviewSummaryAfter<P extends QueuedProduct & { amount_to_pay: number | null }>(
  summary: { review_pending?: number; review_at_stake?: number } | undefined,
  before: ReadonlyMap<string, P>,
  after: ReadonlyMap<string, P>,
): { review_pending: number; review_at_stake: number } | undefined {
  if (summary?.review_pending === undefined) return undefined;
  const t: ReviewTally = { pending: summary.review_pending, atStake: toCents(summary.review_at_stake ?? 0) };
  for (const [k, p] of after) {
    const was = before.get(k);
    if (was) tallyReview(t, was, -1);
    tallyReview(t, p, 1);
  }
  return { review_pending: Math.max(0, t.pending), review_at_stake: toNumber(t.atStake < 0n ? 0n : t.atStake) };
}
