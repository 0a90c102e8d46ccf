import { brandLines, type BrandLine } from './brands';

/**
 * How the tariff classifier reads text, the table's rows and the descriptions alike (classifier.ts
 * explains the normalization): words lower-cased, accents and punctuation removed, stop words dropped,
 * plurals folded, words after `para` / `for` / `con` / `with` marked secondary, and brand or model
 * names read as the product type they name (brands.ts). The HS tier, its glossary and the attribute
 * reader normalize the same way, so they import this module (not the classifier, which imports them).
 */

const stopWords = new Set(
  (
    // Spanish
    'a al ante con contra de del desde e el en entre hacia hasta la las le lo los mas muy o por que se segun sin sobre su sus ' +
    'tu un una uno unos unas y u x tipo marca modelo color colores talle talla tamano medida medidas nuevo nueva nuevos nuevas ' +
    'original originales pack paquete unidad unidades und uds pcs cm mm ml kg gr lt oz lb lbs inch pulgada pulgadas ' +
    'demas otros otras otro otra incluidos incluidas incluido incluida incluso excepto similares similar analogos articulos articulo ' +
    'etc tales como cuyo cuya cual partida subpartida manufacturas par pares ' +
    // English
    'an and or of with without in on to by from at as is the new brand size sizes colour item items style model free ' +
    'shipping sale high quality premium genuine other others including whether not kind kinds used thereof articles ' +
    'article its their than less more only per inches pair pairs ' +
    // Model-line words that name no kind of product
    'pro max plus ultra lite gen generation'
  ).split(' '),
);

/**
 * Words after these name what an accessory fits (`para`, `for`) or a feature it has (`con`, `with`),
 * not what it is: they count less, provided the description also names a kind of product.
 */
const secondaryMarkers = new Set(['para', 'for', 'compatible', 'fits', 'p', 'con', 'with', 'c']);
export const secondaryWeight = 0.35;

/** Folds Spanish and English plurals so singular and plural meet: both sides go through it. */
export function stem(word: string): string {
  if (word.length <= 3 || /\d/.test(word)) return word;
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  let s = word;
  if (s.endsWith('s') && !/(ss|us|is)$/.test(s)) s = s.slice(0, -1);
  if (s.length > 3) {
    if (s.endsWith('ce')) return `${s.slice(0, -2)}z`;
    if (s.endsWith('sse')) return s.slice(0, -1);
    if (/[jlrndxh]e$/.test(s)) return s.slice(0, -1);
  }
  return s;
}

export interface Token {
  term: string;
  /** After `para` / `for` / `con` / `with`: what the product fits or has, not what it is. */
  secondary: boolean;
  /** A product type's word read from a brand or model name (brands.ts), not written by the sender. */
  inferred?: boolean;
  /** A word of a brand or model name of brands.ts. */
  brand?: boolean;
}

export function tokens(text: string): Token[] {
  const lower = text.toLowerCase();
  const clean = (/[^\x00-\x7f]/.test(lower) ? lower.normalize('NFD').replace(/[\u0300-\u036f]/g, '') : lower)
    .replace(/\bp\//g, ' para ')
    .replace(/\bc\//g, ' con ')
    .replace(/\b(?:usb|tipo|type)[\s-]*c\b/g, ' usbc ')
    .replace(/\bt[\s-]?shirt/g, 'tshirt')
    // `hot` of a listing's `hot sale` says nothing; of `hot water bottle`, `hot plate`, `hot brush` it is part of the name.
    .replace(/\bhot[\s-]*(?:sale|selling|deals?)\b/g, ' ')
    .replace(/([a-z0-9])[-'\u2019`\u00b4]+(?=[a-z0-9])/g, '$1')
    .replace(/[^a-z0-9]+/g, ' ');
  const out: Token[] = [];
  let secondary = false;
  for (const word of clean.split(' ')) {
    if (!word) continue;
    if (secondaryMarkers.has(word)) {
      secondary = true;
      continue;
    }
    if (stopWords.has(word) || word.length < 2 || /^\d+$/.test(word)) continue;
    out.push({ term: stem(word), secondary });
  }
  return out;
}

let brandIndex: Map<string, BrandLine[]> | undefined;

/**
 * A description's tokens with the product type each brand or model name names (brands.ts) read after
 * the name: `Apple AirPods Pro` -> `airpods auricular earphone`. The maker's name before a line name
 * goes with it (`apple` of `Apple AirPods` is no fruit).
 */
export function withBrands(toks: Token[], known?: (name: readonly string[]) => boolean): Token[] {
  if (!brandIndex) {
    brandIndex = new Map();
    for (const line of brandLines((t) => tokens(t).map((x) => x.term))) {
      const list = brandIndex.get(line.name[0]) ?? [];
      list.push(line);
      brandIndex.set(line.name[0], list);
    }
  }
  let out: Token[] | undefined;
  for (let k = 0; k < toks.length; k++) {
    const line = brandIndex.get(toks[k].term)?.find((l) => l.name.every((w, j) => toks[k + j]?.term === w));
    // A name the table already knows as a keyword says what it is there; after `para` / `for` a name
    // says what an accessory fits, not what it is.
    if (!line || known?.(line.name) || toks[k].secondary) {
      out?.push(toks[k]);
      continue;
    }
    out ??= toks.slice(0, k);
    const prev = out[out.length - 1];
    if (prev && line.makers.includes(prev.term)) out.pop();
    const secondary = toks[k].secondary;
    for (let j = 0; j < line.name.length; j++) out.push({ ...toks[k + j], brand: true });
    for (const t of tokens(line.product)) out.push({ term: t.term, secondary, inferred: true });
    k += line.name.length - 1;
  }
  return out ?? toks;
}

/** The normalized terms of a text, in order (for caches keyed by meaning rather than spelling). */
export function normalizeText(text: string): string[] {
  return tokens(text).map((t) => t.term);
}

/** Adjacent words joined: a bigram, trigram or longer phrase term. */
export const gram = (terms: readonly string[]) => terms.join('_');
export const maxGram = 4;
