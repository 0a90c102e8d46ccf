import { decide, itemKey, payloadHash, type ItemDecision } from './identity';
import { awbOf, type ManifestItem } from './submission';
import type { DecisionEntry, StoredItem } from './model';

/** An item of a payload with its identity worked out (spec 4.4 rules 4 and 5). */
export interface KeyedItem {
  line: number;
  key: string;
  hash: string;
  awb: string;
  item: ManifestItem;
}

export function keyItems(items: readonly ManifestItem[], ctx: { accountId: number; manifestNumber: string; batchId: string }): KeyedItem[] {
  return items.map((item, line) => ({
    line,
    key: itemKey({ teamId: String(ctx.accountId), manifestNumber: ctx.manifestNumber, batchId: ctx.batchId, item }),
    hash: payloadHash(item),
    awb: awbOf(item) ?? '',
    item,
  }));
}

export type ExistingItem = Pick<StoredItem, 'hash' | 'runId' | 'decision' | 'createdAt'>;

export interface Resolution {
  /** CREATE and UPDATE items, the only ones written and sent to processing. */
  writes: StoredItem[];
  entries: DecisionEntry[];
  counts: Record<Lowercase<ItemDecision>, number>;
  /** Distinct AWBs among the items this resolution creates. */
  newAwbs: number;
}

/**
 * Decides every item of one payload against the batch's stored items (3.5). A record already
 * written by this same run (a retried or taken-over submission) keeps the decision it got then,
 * so a retry reports and writes exactly what the first attempt did.
 */
export function resolveItems(
  keyed: readonly KeyedItem[],
  ctx: { accountId: number; batchId: string; runId: string; at: string },
  existing: ReadonlyMap<string, ExistingItem>,
  crossTeamAwbs: ReadonlySet<string> = new Set(),
): Resolution {
  const seen = new Set<string>();
  const writes: StoredItem[] = [];
  const entries: DecisionEntry[] = [];
  const counts = { create: 0, update: 0, skip: 0, reject: 0 };
  const awbs = new Set<string>();
  for (const k of keyed) {
    const prior = existing.get(k.key);
    const sameRun = prior?.runId === ctx.runId;
    const verdict = sameRun
      ? decide(undefined, { key: k.key, hash: k.hash, awb: k.awb }, seen)
      : decide(prior && { key: k.key, hash: prior.hash }, { key: k.key, hash: k.hash, awb: k.awb, crossTeam: !prior && crossTeamAwbs.has(k.awb) }, seen);
    const decision: ItemDecision = sameRun && verdict.decision === 'CREATE' ? prior!.decision : verdict.decision;
    const reason = sameRun && verdict.decision === 'CREATE' && prior!.decision === 'UPDATE' ? 'payload changed' : verdict.reason;
    counts[decision.toLowerCase() as Lowercase<ItemDecision>]++;
    entries.push([k.line, k.key, k.awb, decision, reason]);
    if (decision === 'CREATE' || decision === 'UPDATE') {
      // Counted again on a resumed write too: the segment (and its counts) is recorded once.
      if (decision === 'CREATE') awbs.add(k.awb);
      writes.push({
        batchId: ctx.batchId,
        accountId: ctx.accountId,
        itemKey: k.key,
        awb: k.awb,
        hash: k.hash,
        runId: ctx.runId,
        decision,
        line: k.line,
        data: k.item,
        createdAt: prior?.createdAt ?? ctx.at,
        updatedAt: ctx.at,
      });
    }
  }
  return { writes, entries, counts, newAwbs: awbs.size };
}
