import { createHash } from 'node:crypto';
import type { ClassifyInput } from '#core/tariff/classifier';
import type { ManifestItem } from '#core/manifests/submission';

/**
 * What identifies a product for the partner-code memory: its description, name and category as
 * words (case, accents and spacing folded) and its declared code as digits. Memories written before
 * issue 39 are keyed by it alone; they are still read (`memoryKeysOf`'s last key).
 */
export function fingerprintOf(input: ClassifyInput): string {
  const key = JSON.stringify([words(input.description), words(input.name), words(input.category), (input.hsCode ?? '').replace(/\D/g, '')]);
  return hash(key);
}

/** How a remembered decision met a later product: its product link (the partner's SKU), its description, or the whole product as before issue 39. */
export type MemoryMatch = 'link' | 'description' | 'product';

export interface MemoryKey {
  match: MemoryMatch;
  key: string;
}

/**
 * The keys under which the partner-code memory knows a product, strongest first: its product link
 * (`productLink`, the partner's own page of the article, which names it as a SKU does), then its
 * description (the name when it has none) as words, whatever category or code the partner declares
 * beside it, then the fingerprint of memories written before issue 39. A decision is written under
 * the first two; a product is answered by the first key remembered.
 */
export function memoryKeysOf(item: Pick<ManifestItem, 'itemDescription' | 'itemName' | 'Category' | 'hsCode' | 'productLink'>): MemoryKey[] {
  const keys: MemoryKey[] = [];
  const link = linkOf(item.productLink);
  if (link) keys.push({ match: 'link', key: hash(`link ${link}`) });
  const text = words(item.itemDescription) || words(item.itemName);
  if (text.length >= 3) keys.push({ match: 'description', key: hash(`text ${text}`) });
  keys.push({ match: 'product', key: fingerprintOf({ description: item.itemDescription, name: item.itemName, category: item.Category, hsCode: item.hsCode }) });
  return keys;
}

/** The keys a decision is written under: the product's link and description (the legacy fingerprint only when it has neither). */
export function keysToRemember(item: Parameters<typeof memoryKeysOf>[0]): MemoryKey[] {
  const keys = memoryKeysOf(item);
  const fresh = keys.filter((k) => k.match !== 'product');
  return fresh.length ? fresh : keys;
}

const words = (s?: string) => (s ?? '').normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/\s+/g, ' ').trim();

const hash = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 32);

/**
 * A product link as the same article's: host lower-cased without `www.`, path without a trailing
 * slash, query parameters that track a visit (`utm_*`, `ref`, `gclid`, `fbclid`) and the fragment
 * dropped, the others sorted. Not a URL: undefined.
 */
export function linkOf(raw?: string): string | undefined {
  if (!raw?.trim()) return undefined;
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return undefined;
  }
  const params = [...url.searchParams.entries()].filter(([k]) => !/^(utm_.*|ref|gclid|fbclid|srsltid)$/i.test(k)).sort(([a], [b]) => a.localeCompare(b));
  const query = params.length ? `?${new URLSearchParams(params).toString()}` : '';
  return `${url.hostname.toLowerCase().replace(/^www\./, '')}${url.pathname.replace(/\/+$/, '')}${query}`;
}
