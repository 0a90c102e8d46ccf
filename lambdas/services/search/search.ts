import { ValidationFailed } from '#core/errors';
import { isVisible, type BatchRecord } from '#core/manifests/model';
import type { DocumentRecord } from '#core/documents/model';
import { planQuery, taxIdOf, matchText, type IndexRead, type KindPlan, type SearchEntry, type SearchKind } from '#core/search/index-terms';
import { getAccount } from '#infra/entities/auth';
import { getDocuments } from '#infra/entities/documents';
import { getBatches, itemsByTaxIdPrefix } from '#infra/entities/manifests';
import { readSearchPacks, type SearchPackItem } from '#infra/entities/search';
import { encodeCursor, parseCursor } from '#infra/cursors';

/**
 * The broker's search across every account (GET /v1/couriers/review/search; docs/brokers/search.md):
 * each kind the query can be is read from the index (core/search/index-terms), its values
 * matched, one result per value and batch (or document), then checked against the records they
 * point to (a batch still being written or a document that was never stored is left out) and
 * named with the account's name.
 */

/** The answer's groups, by kind. */
export const groupOf = { batch: 'batches', awb: 'awbs', taxid: 'tax_ids', consignee: 'consignees', product: 'products', document: 'documents' } as const satisfies Record<SearchKind, string>;
export type Group = (typeof groupOf)[SearchKind];

/** How far a cursor may page into one kind, and how many index pages one kind reads at most. */
const maxOffset = 500;
const maxReadsPerKind = 12;
const packsPerRead = 25;

interface Hit {
  pack: SearchPackItem;
  entry: SearchEntry;
}

/** One page of a read as hits: index packs, or (tax ids) the items' own gsi2 keys. */
async function readHits(read: IndexRead, start: string | undefined): Promise<{ hits: Hit[]; last: string | null }> {
  if (read.kind !== 'taxid') {
    const page = await readSearchPacks(read, { limit: packsPerRead, start });
    return { hits: page.packs.flatMap((pack) => pack.entries.map((entry) => ({ pack, entry }))), last: page.last };
  }
  const page = await itemsByTaxIdPrefix(read.prefix, read.head, { limit: 100, start });
  const hits = page.items.flatMap((it): Hit[] => {
    const taxId = taxIdOf(it);
    if (!taxId) return [];
    const pack = { kind: 'taxid' as const, head: read.head, key: taxId, scope: it.batchId, part: 0, accountId: it.accountId, batchId: it.batchId, entries: [] };
    const entry: SearchEntry = { v: taxId, n: taxId, a: it.awb, k: it.itemKey, ...(it.data.consigneeIdType ? { t: it.data.consigneeIdType } : {}), x: it.data.consigneeName };
    return [{ pack, entry }];
  });
  return { hits, last: page.last };
}

/** The distinct hits of one kind, the first `want` of them (and whether there are more). */
async function hitsOf(plan: KindPlan, want: number): Promise<{ hits: Hit[]; more: boolean }> {
  const seen = new Map<string, Hit>();
  let reads = 0;
  for (const read of plan.reads) {
    let start: string | undefined;
    do {
      const page = await readHits(read, start);
      reads++;
      for (const hit of page.hits) {
        if (!plan.matches(hit.entry)) continue;
        const id = hit.pack.kind === 'document' ? `D${hit.pack.documentId}` : `${matchText(hit.entry)}#${hit.pack.batchId}`;
        if (!seen.has(id)) seen.set(id, hit);
      }
      start = page.last ?? undefined;
    } while (start && seen.size <= want && reads < maxReadsPerKind);
    if (seen.size > want) break;
  }
  const hits = [...seen.values()];
  return { hits: hits.slice(0, want), more: hits.length > want };
}

/** One result as the answer shows it: what it is, where it sits, and the console's address of it. */
function resultOf(kind: SearchKind, hit: Hit, batch: BatchRecord | undefined, doc: DocumentRecord | undefined, accountName: string | null) {
  const { pack, entry } = hit;
  const base = {
    kind,
    value: entry.v,
    account_id: pack.accountId,
    account_name: accountName,
    batch_id: pack.batchId ?? null,
    manifest_number: batch?.manifestNumber ?? pack.manifestNumber ?? null,
  };
  const manifest = `/console/manifests/${encodeURIComponent(pack.batchId ?? '')}`;
  switch (kind) {
    case 'batch':
      return { ...base, mawb_number: batch?.mawbNumber ?? entry.x ?? null, status: batch?.status ?? null, closed: Boolean(batch?.closedAt), link: manifest };
    case 'awb':
      return { ...base, awb_number: entry.v, item_key: entry.k ?? null, link: `${manifest}?awb=${encodeURIComponent(entry.v)}` };
    case 'taxid':
      return { ...base, tax_id: entry.v, tax_id_type: entry.t ?? null, consignee_name: entry.x ?? null, awb_number: entry.a ?? null, link: `/console/quota/${entry.v}` };
    case 'consignee':
      return { ...base, consignee_name: entry.v, tax_id: entry.t ?? null, awb_number: entry.a ?? null, link: entry.t ? `/console/quota/${entry.t}` : manifest };
    case 'product':
      return { ...base, description: entry.v, awb_number: entry.a ?? null, item_key: entry.k ?? null, link: `/console/review/${encodeURIComponent(pack.batchId ?? '')}?awb=${encodeURIComponent(entry.a ?? '')}` };
    case 'document':
      return {
        ...base,
        document_id: pack.documentId ?? null,
        file_name: doc?.fileName ?? entry.v,
        document_type: doc?.documentType ?? entry.x ?? null,
        state: doc?.state ?? null,
        manifest_number: doc?.manifestId ?? null,
        link: `/console/documents/${pack.documentId}`,
      };
  }
}

export type SearchResult = ReturnType<typeof resultOf>;

async function offsetOf(cursor: string | undefined, kind: SearchKind | undefined): Promise<number> {
  if (cursor === undefined) return 0;
  const c = await parseCursor(cursor);
  const o = typeof c === 'object' && c !== null && 'o' in c && 'k' in c ? c : undefined;
  if (!o || typeof o.o !== 'number' || !Number.isInteger(o.o) || o.o < 0 || o.o > maxOffset || o.k !== kind) {
    throw new ValidationFailed({ cursor: ['Is not a cursor this search answered (with the same kind); leave it out to start from the first page.'] });
  }
  return o.o;
}

/** Reads the records the hits point to, and the accounts' names. */
async function recordsOf(found: { kind: SearchKind; hits: Hit[] }[]) {
  const all = found.flatMap((f) => f.hits);
  const batchIds = [...new Set(all.flatMap((h) => (h.pack.batchId ? [h.pack.batchId] : [])))];
  const docIds = [...new Set(all.flatMap((h) => (h.pack.documentId !== undefined ? [h.pack.documentId] : [])))];
  const accountIds = [...new Set(all.map((h) => h.pack.accountId))];
  const [batches, docs, accounts] = await Promise.all([getBatches(batchIds), getDocuments(docIds), Promise.all(accountIds.map((id) => getAccount(id)))]);
  return {
    batches: new Map(batches.map((b) => [b.batchId, b])),
    docs: new Map(docs.map((d) => [d.id, d])),
    names: new Map(accounts.flatMap((a) => (a ? [[a.id, a.name] as const] : []))),
  };
}

/**
 * Searches every kind the query can be (or only `kind`), `perPage` results each. A cursor pages
 * one kind (it is answered only when `kind` is given).
 */
export async function search(opts: { q: string; kind?: SearchKind; perPage: number; cursor?: string }) {
  const offset = await offsetOf(opts.cursor, opts.kind);
  const plans = planQuery(opts.q).filter((p) => !opts.kind || p.kind === opts.kind);
  const found = await Promise.all(plans.map(async (plan) => ({ kind: plan.kind, ...(await hitsOf(plan, offset + opts.perPage)) })));
  const records = await recordsOf(found);
  const groups = Object.fromEntries(Object.values(groupOf).map((g) => [g, { results: [] as SearchResult[], more: false, next_cursor: null as string | null }]));
  for (const f of found) {
    const results = f.hits.slice(offset).flatMap((hit) => {
      const batch = hit.pack.batchId ? records.batches.get(hit.pack.batchId) : undefined;
      const doc = hit.pack.documentId !== undefined ? records.docs.get(hit.pack.documentId) : undefined;
      if (hit.pack.batchId && (!batch || !isVisible(batch))) return [];
      if (hit.pack.kind === 'document' && !doc) return [];
      return [resultOf(f.kind, hit, batch, doc, records.names.get(hit.pack.accountId) ?? null)];
    });
    const next = f.more && opts.kind && offset + opts.perPage <= maxOffset ? await encodeCursor({ k: opts.kind, o: offset + opts.perPage }) : null;
    groups[groupOf[f.kind]] = { results, more: f.more, next_cursor: next };
  }
  return { q: opts.q, kinds: plans.map((p) => groupOf[p.kind]), ...groups };
}
