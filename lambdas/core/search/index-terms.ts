/**
 * The search's terms (issue 40, item 2; docs/brokers/search.md): how values are normalized, cut
 * into words, packed into index items and matched. Pure: no I/O.
 *
 * - Identifiers (guía/MAWB, manifest number, AWB, CUIT/CUIL/DNI) match by prefix once folded:
 *   upper case, letters and digits only (`20-12345678-6`, `20.12345678.6` and `20123456786` are
 *   one value).
 * - Names and descriptions match by words: lower case, accents dropped, split on anything that is
 *   not a letter or a digit. Every word of the query must be a word of the value; the last one
 *   may be the start of a word (typing "casco bici" finds "Casco de bicicleta").
 *
 * Index items ("packs") hold the values of one key (a word, or an identifier's first characters)
 * of one batch segment (or one document), at most `packLimit` of them each, so an item never grows
 * with the work: a segment with more values under one key writes more packs (`part`). Tax ids are
 * the exception: each manifest item carries its own as sparse gsi2 keys (`taxIdSearchKeys`).
 */

export const searchKinds = ['batch', 'awb', 'taxid', 'consignee', 'product', 'document'] as const;
export type SearchKind = (typeof searchKinds)[number];

/** One value in a pack: what is shown (`v`), what is matched (`n`), and what it links to. */
export interface SearchEntry {
  /** The value as written (a name, a description cut to 120 characters, an AWB as sent). */
  v: string;
  /** The folded identifier; left out for names and descriptions, whose words are read off `v` (`matchText`). */
  n?: string;
  /** An AWB of the value (the AWB itself, or one that carries the consignee or the product). */
  a?: string;
  /** The item key the value was read from (products, AWBs). */
  k?: string;
  /** A tax id (digits) beside a consignee, or the type (CUIT, CUIL, DNI) beside a tax id. */
  t?: string;
  /** Something more to show: the consignee's name beside a tax id, the MAWB beside a manifest, a document's type. */
  x?: string;
}

/** One index item's content: the key it is found under, its scope (a batch segment, a batch, a document) and its values. */
export interface SearchPack {
  kind: SearchKind;
  key: string;
  /** What makes the item's key unique beside `key`: `<batchId>#<segment>` or `<batchId>` or `D<documentId>`. */
  scope: string;
  part: number;
  accountId: number;
  batchId?: string;
  manifestNumber?: string;
  documentId?: number;
  entries: SearchEntry[];
}

/** The largest number of values in one index item, per kind (a description's entry is the largest, about 300 bytes). */
export const packLimit: Record<SearchKind, number> = { batch: 1, awb: 100, taxid: 1, consignee: 100, product: 100, document: 1 };

/** The characters of a key that make the item's partition (`SEARCH#<kind>#<head>`): spread, and what a query needs at least. */
export const headLength: Record<SearchKind, number> = { batch: 2, awb: 2, taxid: 3, consignee: 2, product: 2, document: 2 };

/** At most this many words of a value are index keys (its first distinct ones, stop words left out); all of them are matched. */
export const maxIndexedWords = 8;

export const maxQueryLength = 200;

/** An identifier folded: upper case, letters and digits only. */
export function foldIdentifier(text: string): string {
  return stripAccents(text).toUpperCase().replace(/[^A-Z0-9]/g, '');
}

function stripAccents(text: string): string {
  return /[^\x00-\x7f]/.test(text) ? text.normalize('NFD').replace(/\p{M}/gu, '') : text;
}

/** The words of a text: lower case, without accents, split on anything but letters and digits. */
export function words(text: string): string[] {
  return stripAccents(text)
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/** Words that say nothing of the goods or the person (Spanish and English): not index keys, not required to match. */
const stopWords = new Set(
  'a al and con de del el en for la las los of on or para por the to un una uno with y x'.split(' '),
);

/** The distinct words of a text that are worth an index item, in order, at most `maxIndexedWords`. */
export function indexWords(text: string): string[] {
  const out: string[] = [];
  for (const w of words(text)) {
    if (w.length < 2 || stopWords.has(w) || out.includes(w)) continue;
    out.push(w);
    if (out.length === maxIndexedWords) break;
  }
  return out;
}

/**
 * The key an AWB is packed under: its folded value without its last two characters (AWBs of a
 * flight are issued in runs, so up to 100 share a pack), or the whole value when it is 4
 * characters or fewer.
 */
export function awbKey(folded: string): string {
  return folded.length > 4 ? folded.slice(0, -2) : folded;
}

/** What an entry is matched on: its folded identifier, or the words of its value. */
export const matchText = (e: SearchEntry): string => e.n ?? words(e.v).join(' ');

const cut = (s: string, n: number) => (s.length > n ? s.slice(0, n - 1) + '…' : s);

/** The head of a key: the partition it lives in. */
export function headOf(kind: SearchKind, key: string): string {
  return key.slice(0, headLength[kind]);
}

/* ---- what the writes index ---- */

/** What the search needs of a manifest item (core/manifests/submission `ManifestItem`). */
export interface IndexableItem {
  itemKey: string;
  awb: string;
  data: {
    consigneeName?: string;
    consigneeIdNumber?: string;
    consigneeIdType?: string;
    itemDescription?: string;
    itemName?: string;
  };
}

interface Scope {
  accountId: number;
  batchId: string;
  manifestNumber: string;
}

/** Groups entries under keys, each key's entries once (by `n`), in the order they came. */
class Packer {
  private readonly byKey = new Map<string, Map<string, SearchEntry>>();
  constructor(readonly kind: SearchKind) {}

  add(key: string, entry: SearchEntry): void {
    if (key.length < headLength[this.kind]) return;
    let entries = this.byKey.get(key);
    if (!entries) this.byKey.set(key, (entries = new Map()));
    const id = matchText(entry);
    if (!entries.has(id)) entries.set(id, entry);
  }

  packs(base: Omit<SearchPack, 'kind' | 'key' | 'part' | 'entries'>): SearchPack[] {
    const out: SearchPack[] = [];
    const limit = packLimit[this.kind];
    for (const [key, entries] of this.byKey) {
      const list = [...entries.values()];
      for (let i = 0, part = 0; i < list.length; i += limit, part++) out.push({ ...base, kind: this.kind, key, part, entries: list.slice(i, i + limit) });
    }
    return out;
  }
}

/**
 * The index items of one segment of a batch's items (what one intake write stores): AWBs packed
 * by their first characters, each distinct tax id, and each distinct consignee name and product
 * description under each of its words. `segment` keeps two segments' packs apart; the same
 * segment written again gives the same items, so a retried write puts the same keys.
 */
export function packsOfItems(items: readonly IndexableItem[], scope: Scope, segment: string): SearchPack[] {
  const awbs = new Packer('awb');
  const names = new Packer('consignee');
  const products = new Packer('product');
  for (const it of items) {
    const awb = foldIdentifier(it.awb);
    if (awb) awbs.add(awbKey(awb), { v: it.awb, n: awb, k: it.itemKey });
    const d = it.data;
    const taxId = taxIdOf(it);
    if (d.consigneeName) {
      const entry: SearchEntry = { v: cut(d.consigneeName, 120), a: it.awb, ...(taxId ? { t: taxId } : {}) };
      for (const w of indexWords(entry.v)) names.add(w, entry);
    }
    const description = d.itemDescription ?? d.itemName;
    if (description) {
      const entry: SearchEntry = { v: cut(description, 120), a: it.awb, k: it.itemKey };
      for (const w of indexWords(entry.v)) products.add(w, entry);
    }
  }
  const base = { ...scope, scope: `${scope.batchId}#${segment}` };
  return [...awbs.packs(base), ...names.packs(base), ...products.packs(base)];
}

/** An item's tax id as digits, when it has one long enough to search. */
export function taxIdOf(it: Pick<IndexableItem, 'data'>): string | undefined {
  const digits = it.data.consigneeIdNumber?.replace(/\D/g, '');
  return digits && digits.length >= headLength.taxid ? digits : undefined;
}

/**
 * Tax ids are not packed: they are spread too evenly for a key to gather several (a flight's
 * consignees are mostly different people), so each item carries its own, as the keys of the
 * table's gsi2 (sparse: an item without a tax id is not in it). The write is the item's own put;
 * the index costs its GSI write, no request of its own.
 */
export function taxIdSearchKeys(it: Pick<IndexableItem, 'data' | 'itemKey'>, batchId: string): { searchTaxHead: string; searchTaxRef: string } | undefined {
  const taxId = taxIdOf(it);
  return taxId ? { searchTaxHead: headOf('taxid', taxId), searchTaxRef: `${taxId}#${batchId}#${it.itemKey}` } : undefined;
}

/** The index items of a batch: its manifest number and its guía (MAWB), each an identifier. */
export function packsOfBatch(batch: Scope & { mawbNumber: string }): SearchPack[] {
  const out: SearchPack[] = [];
  const manifest = foldIdentifier(batch.manifestNumber);
  const mawb = foldIdentifier(batch.mawbNumber);
  for (const key of new Set([manifest, mawb])) {
    if (key.length < headLength.batch) continue;
    out.push({ ...batch, kind: 'batch', key, scope: batch.batchId, part: 0, entries: [{ v: batch.manifestNumber, n: key, x: batch.mawbNumber }] });
  }
  return out;
}

/** The index items of a document: each word of its file name (and its title, when it has one). */
export function packsOfDocument(doc: { id: number; accountId: number; fileName: string; title?: string; documentType: string; manifestId?: string }): SearchPack[] {
  const text = [doc.fileName.replace(/\.[A-Za-z0-9]{1,5}$/, ''), doc.title ?? ''].join(' ');
  const entry: SearchEntry = { v: cut(doc.title ? `${doc.title} (${doc.fileName})` : doc.fileName, 160), n: cut(words(text).join(' '), 160), x: doc.documentType };
  return indexWords(text).map((w) => ({
    kind: 'document' as const,
    key: w,
    scope: `D${doc.id}`,
    part: 0,
    accountId: doc.accountId,
    documentId: doc.id,
    ...(doc.manifestId ? { manifestNumber: doc.manifestId } : {}),
    entries: [entry],
  }));
}

/* ---- what a query reads ---- */

/** One read of the index: a partition, and the start of the sort keys wanted. */
export interface IndexRead {
  kind: SearchKind;
  head: string;
  prefix: string;
}

/** What a query asks of one kind: the reads, and the test a value passes to be a result. */
export interface KindPlan {
  kind: SearchKind;
  reads: IndexRead[];
  matches: (entry: SearchEntry) => boolean;
}

/** The reads of an identifier kind for a folded prefix `p`. */
function identifierPlan(kind: 'batch' | 'awb' | 'taxid', p: string): KindPlan | null {
  if (p.length < headLength[kind]) return null;
  const head = p.slice(0, headLength[kind]);
  const matches = (e: SearchEntry) => matchText(e).startsWith(p);
  if (kind !== 'awb') return { kind, reads: [{ kind, head, prefix: p }], matches };
  // An AWB of p's length, or one longer, sits under p without its last 2 or 1 characters; a longer one under a key that starts with p.
  const reads: IndexRead[] = [{ kind, head, prefix: p }];
  for (const j of [0, 1]) if (p.length + j > 4 && p.length + j - 2 >= headLength.awb) reads.push({ kind, head, prefix: `${p.slice(0, p.length + j - 2)}#` });
  return { kind, reads, matches };
}

/** The reads of a words kind: the longest word of the query (the last one as a prefix), and the test that every word is there. */
function wordsPlan(kind: 'consignee' | 'product' | 'document', qw: readonly string[]): KindPlan | null {
  const wanted = qw.filter((w) => !stopWords.has(w));
  const all = wanted.length ? wanted : [...qw];
  if (!all.length) return null;
  const last = all.length - 1;
  let driver = -1;
  all.forEach((w, i) => {
    if (w.length >= headLength[kind] && (driver < 0 || w.length > all[driver].length)) driver = i;
  });
  if (driver < 0) return null;
  const w = all[driver];
  const matches = (e: SearchEntry) => {
    const have = matchText(e).split(' ');
    return all.every((q, i) => (i === last ? have.some((h) => h.startsWith(q)) : have.includes(q)));
  };
  return { kind, reads: [{ kind, head: w.slice(0, headLength[kind]), prefix: driver === last ? w : `${w}#` }], matches };
}

/** The plan of a query: which kinds it can be, and how each is read. */
export function planQuery(q: string): KindPlan[] {
  const ident = foldIdentifier(q);
  const digits = /^[\d\s.\-/]+$/.test(q.trim()) ? q.replace(/\D/g, '') : '';
  const qw = words(q);
  const plans = [
    identifierPlan('batch', ident),
    identifierPlan('awb', ident),
    digits ? identifierPlan('taxid', digits) : null,
    wordsPlan('consignee', qw),
    wordsPlan('product', qw),
    wordsPlan('document', qw),
  ];
  return plans.filter((p): p is KindPlan => p !== null);
}
