import { blobs } from '#infra/blobs';
import type { ProcessedProduct } from '#core/manifests/views';
import { decisionEvidence, type ClassificationReview } from '#core/manifests/model';

/**
 * A batch's results as a finished run leaves them: every processed product in item-key order, in
 * parts of at most `productsPerPart`, each part beside the item hashes its products were computed
 * from, and an index of the parts written last (a run whose index is missing has no results yet).
 * Readers take one part at a time, so no reader holds a whole 100,000-item batch:
 *
 *   exports/{batchId}/{runId}/results/index.json            {total, parts: [{first, last, count}]}
 *   exports/{batchId}/{runId}/results/products-00000.ndjson  one product (JSON) a line
 *   exports/{batchId}/{runId}/results/hashes-00000.json      {itemKey: hash} of the same products
 */
export const productsPerPart = 2_000;

export interface ResultRow {
  product: ProcessedProduct;
  /** The item hash the product was computed from (what makes a result current for the next run). */
  hash: string;
}

export interface ResultsIndex {
  total: number;
  /**
   * `run` and `part`, when present, say where a part is stored: a broker's correction
   * (services/review) writes only the parts it changes under its own id and points at the rest.
   */
  parts: { first: string; last: string; count: number; run?: string; part?: number }[];
  /**
   * A broker's decisions that changed only a product's reason since its part was written, by item
   * key: put on the product as its part is read (`readPartOf`), so a new reason costs an index, not
   * a copy of the part. At most `maxIndexReviews`; past that, the decision copies the part.
   */
  reviews?: Record<string, ClassificationReview>;
}

/** The most reason-only decisions an index carries (about 300 bytes each). */
export const maxIndexReviews = 100;

/**
 * The index of a revision that writes anew the parts in `written` (their products as read, with
 * any reason-only decisions already put on) and points at the other parts where they are; the
 * reason-only decisions of the parts not written are kept, with `reviews` added.
 */
export function revisedIndex(runId: string, index: ResultsIndex, written: ReadonlySet<number>, reviews: Record<string, ClassificationReview> = {}): ResultsIndex {
  const kept = Object.entries(index.reviews ?? {}).filter(([key]) => !written.has(partOfKey(index, key)));
  const all = { ...Object.fromEntries(kept), ...reviews };
  return {
    total: index.total,
    parts: index.parts.map((p, n) => {
      if (written.has(n)) return { first: p.first, last: p.last, count: p.count };
      const loc = partAt(runId, index, n);
      return { first: p.first, last: p.last, count: p.count, run: loc.run, part: loc.part };
    }),
    ...(Object.keys(all).length ? { reviews: all } : {}),
  };
}

/** The part whose key range holds `itemKey` (-1 when none does). */
export const partOfKey = (index: ResultsIndex, itemKey: string) => index.parts.findIndex((p) => p.first <= itemKey && itemKey <= p.last);

/** Where part `n` of a run's results is stored: its own folder, or the run it was taken over from. */
export function partAt(runId: string, index: ResultsIndex, n: number): { run: string; part: number } {
  const p = index.parts[n];
  return { run: p.run ?? runId, part: p.part ?? n };
}

const base = (batchId: string, runId: string) => `exports/${batchId}/${runId}/results`;
const indexKey = (batchId: string, runId: string) => `${base(batchId, runId)}/index.json`;
const partName = (part: number) => String(part).padStart(5, '0');
const productsKey = (batchId: string, runId: string, part: number) => `${base(batchId, runId)}/products-${partName(part)}.ndjson`;
const hashesKey = (batchId: string, runId: string, part: number) => `${base(batchId, runId)}/hashes-${partName(part)}.json`;

/** Writes the rows (in item-key order) as parts, then the index; answers the index. */
export async function writeResults(batchId: string, runId: string, rows: AsyncIterable<ResultRow>): Promise<ResultsIndex> {
  const index: ResultsIndex = { total: 0, parts: [] };
  let lines: string[] = [];
  let hashes: Record<string, string> = {};
  let first = '';
  let last = '';
  const flush = async () => {
    const part = index.parts.length;
    await Promise.all([
      blobs().put(productsKey(batchId, runId, part), Buffer.from(lines.join('\n') + '\n'), 'application/x-ndjson'),
      blobs().put(hashesKey(batchId, runId, part), Buffer.from(JSON.stringify(hashes)), 'application/json'),
    ]);
    index.parts.push({ first, last, count: lines.length });
    lines = [];
    hashes = {};
  };
  for await (const { product, hash } of rows) {
    if (!lines.length) first = product.item_key;
    last = product.item_key;
    lines.push(JSON.stringify(product));
    hashes[product.item_key] = hash;
    index.total++;
    if (lines.length === productsPerPart) await flush();
  }
  if (lines.length) await flush();
  await blobs().put(indexKey(batchId, runId), Buffer.from(JSON.stringify(index)), 'application/json');
  return index;
}

async function findIndex(batchId: string, runId: string): Promise<ResultsIndex | undefined> {
  const body = await blobs().get(indexKey(batchId, runId));
  return body ? (JSON.parse(body.toString('utf8')) as ResultsIndex) : undefined;
}

/** The index of a finished run's results; a finished run without one is a fault, not an empty batch. */
export async function resultsIndex(batchId: string, runId: string): Promise<ResultsIndex> {
  const index = await findIndex(batchId, runId);
  if (!index) throw new Error(`results missing: ${indexKey(batchId, runId)}`);
  return index;
}

/** Writes one part's products (in item-key order) and their hashes under `runId`, as `writeResults` does. */
export async function writePart(batchId: string, runId: string, part: number, lines: readonly string[], hashes: Record<string, string>): Promise<void> {
  await Promise.all([
    blobs().put(productsKey(batchId, runId, part), Buffer.from(lines.join('\n') + '\n'), 'application/x-ndjson'),
    blobs().put(hashesKey(batchId, runId, part), Buffer.from(JSON.stringify(hashes)), 'application/json'),
  ]);
}

/** Writes a run's index (last: a run's results exist once it is there). */
export async function writeIndex(batchId: string, runId: string, index: ResultsIndex): Promise<void> {
  await blobs().put(indexKey(batchId, runId), Buffer.from(JSON.stringify(index)), 'application/json');
}

export async function readPart(batchId: string, runId: string, part: number): Promise<string[]> {
  const body = await blobs().get(productsKey(batchId, runId, part));
  if (!body) throw new Error(`results part missing: ${productsKey(batchId, runId, part)}`);
  return body.toString('utf8').split('\n').filter(Boolean);
}

export async function readHashes(batchId: string, runId: string, part: number): Promise<Record<string, string>> {
  const body = await blobs().get(hashesKey(batchId, runId, part));
  if (!body) throw new Error(`results part missing: ${hashesKey(batchId, runId, part)}`);
  return JSON.parse(body.toString('utf8')) as Record<string, string>;
}

/** Part `n` of the run's results, wherever the index says it is stored, with the index's reason-only decisions put on. */
export async function readPartOf(batchId: string, runId: string, index: ResultsIndex, n: number): Promise<string[]> {
  const at = partAt(runId, index, n);
  const lines = await readPart(batchId, at.run, at.part);
  const { first, last } = index.parts[n];
  const reviews = Object.entries(index.reviews ?? {}).filter(([key]) => first <= key && key <= last);
  if (!reviews.length) return lines;
  const byKey = new Map(reviews);
  return lines.map((line) => {
    const product = JSON.parse(line) as ProcessedProduct;
    const review = byKey.get(product.item_key);
    return review ? JSON.stringify({ ...product, classification_evidence: decisionEvidence(review), review }) : line;
  });
}

export function readHashesOf(batchId: string, runId: string, index: ResultsIndex, n: number): Promise<Record<string, string>> {
  const at = partAt(runId, index, n);
  return readHashes(batchId, at.run, at.part);
}

/** Each part in turn, the next one read while the current one is used. */
async function* eachPart<T>(parts: number, read: (part: number) => Promise<T>): AsyncGenerator<T> {
  const start = (part: number) => {
    const reading = read(part);
    reading.catch(() => undefined); // a reader that stops early must not leave a rejection unhandled
    return reading;
  };
  let next = parts > 0 ? start(0) : undefined;
  for (let part = 0; part < parts; part++) {
    const current = await next!;
    next = part + 1 < parts ? start(part + 1) : undefined;
    yield current;
  }
}

/** The products as stored, one JSON text each, in item-key order (the JSON download copies them as they are). */
export async function* productLines(batchId: string, runId: string, index: ResultsIndex): AsyncGenerator<string> {
  for await (const lines of eachPart(index.parts.length, (p) => readPartOf(batchId, runId, index, p))) yield* lines;
}

export async function* products(batchId: string, runId: string, index: ResultsIndex): AsyncGenerator<ProcessedProduct> {
  for await (const line of productLines(batchId, runId, index)) yield JSON.parse(line) as ProcessedProduct;
}

/** Products with their hashes, in item-key order: what the next run merges its own results into. */
export async function* resultRows(batchId: string, runId: string): AsyncGenerator<ResultRow> {
  const index = await resultsIndex(batchId, runId);
  const read = (p: number) => Promise.all([readPartOf(batchId, runId, index, p), readHashesOf(batchId, runId, index, p)]);
  for await (const [lines, hashes] of eachPart(index.parts.length, read)) {
    for (const line of lines) {
      const product = JSON.parse(line) as ProcessedProduct;
      yield { product, hash: hashes[product.item_key] };
    }
  }
}

/** The products of these items, reading only the parts whose key range holds one of them. */
export async function productsByKey(batchId: string, runId: string, itemKeys: readonly string[]): Promise<Map<string, ProcessedProduct>> {
  const wanted = new Set(itemKeys);
  const index = await resultsIndex(batchId, runId);
  const parts = index.parts.flatMap((p, n) => (itemKeys.some((k) => p.first <= k && k <= p.last) ? [n] : []));
  const found = new Map<string, ProcessedProduct>();
  for (const lines of await Promise.all(parts.map((p) => readPartOf(batchId, runId, index, p)))) {
    for (const line of lines) {
      const product = JSON.parse(line) as ProcessedProduct;
      if (wanted.has(product.item_key)) found.set(product.item_key, product);
    }
  }
  return found;
}

/**
 * The item hashes a finished run's results were computed from (what makes a result current), by
 * item key; empty when the run left none.
 */
export async function getResultHashes(batchId: string, runId: string): Promise<Record<string, string>> {
  const index = await findIndex(batchId, runId);
  const hashes: Record<string, string> = {};
  if (!index) return hashes;
  for await (const part of eachPart(index.parts.length, (p) => readHashesOf(batchId, runId, index, p))) Object.assign(hashes, part);
  return hashes;
}
