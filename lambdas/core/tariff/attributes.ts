import { normalizeText } from './text';

/**
 * What a description says about a product beyond its name, read the way the nomenclature splits
 * siblings: the wearer's gender (chapters 61 and 62 split men's or boys' from women's or girls'
 * headings), figures with a unit (motorcycles 8711.10 to 8711.50 by cylinder capacity, relays 8536.41
 * and 8536.49 by voltage, motors by output) and materials (socks of cotton 6115.95 or of synthetic
 * fibres 6115.96, spoons of stainless steel 8215.99 or kitchenware of wood 4419). The classifier and
 * the HS tier read them from the description and from a row's or subheading's own wording, and prefer
 * the sibling whose wording agrees (see `attributeFactor`).
 */

export type Gender = 'male' | 'female';

/**
 * Word lists (space-separated words of each value) as a map from normalized term to value, built at
 * first use: `normalizeText` is the classifier's, whose module imports this one.
 */
function termMap<T>(lists: readonly (readonly [T, string])[]): () => Map<string, T> {
  let map: Map<string, T> | undefined;
  return () => {
    if (!map) {
      map = new Map();
      for (const [value, words] of lists) for (const w of words.split(' ')) for (const t of normalizeText(w)) map.set(t, value);
    }
    return map;
  };
}

/** A row's wording in lower case without accents, as the wording patterns are written. */
const folded = (text: string) => text.toLowerCase().normalize('NFD').replace(/[\u0300-\u036f]/g, '');

/** A figure the description gives: `150cc`, `220 V`, `3kW`, `1/2 HP`. */
export interface Quantity {
  dim: Dimension;
  value: number;
}

/** A range a row or subheading states: `exceeding 50cc but not exceeding 250cc`. */
export interface Range {
  dim: Dimension;
  min: number;
  max: number;
  /** Whether `min` itself is in the range (`50 W or more`) or not (`exceeding 50 W`). */
  minIncluded: boolean;
  maxIncluded: boolean;
}

/** Cylinder capacity (cm3), power (W; VA counted as W) and voltage (V). */
export type Dimension = 'cc' | 'power' | 'voltage';

export type Material = 'cotton' | 'synthetic' | 'artificial' | 'wool' | 'silk' | 'leather' | 'wood' | 'steel' | 'stainless' | 'aluminium' | 'plastic' | 'glass' | 'ceramic';

/** The attributes of a product, of a row or of a subheading. */
export interface Attributes {
  gender?: Gender;
  /** A garment of chapter 61 or 62 (a row or subheading only): the gender rule applies. */
  garment?: boolean;
  quantities?: Quantity[];
  ranges?: Range[];
  materials?: Material[];
  /** A row or subheading of a chapter whose goods may have an engine (see `mayHaveEngine`). */
  engine?: boolean;
}

/* ---------------- gender ---------------- */

/**
 * Words naming who wears a garment, Spanish and English. `nino`/`nina` (boy, girl) and `boys`/`girls`
 * go with men's and women's, as the headings group them. `unisex` names neither: HS chapter 61 note 9
 * and chapter 62 note 8 classify garments "which cannot be identified as either men's or boys' garments
 * or as women's or girls' garments" in the women's or girls' headings.
 */
const maleWords = 'hombre hombres caballero caballeros varon varones nino ninos masculino masculina men mens man male males boy boys gentleman gentlemen';
const femaleWords = 'mujer mujeres dama damas senora senoras nina ninas femenino femenina women womens woman female females girl girls lady ladies';

const genderTermMap = termMap<Gender>([['male', maleWords], ['female', femaleWords]]);

/** Whether a normalized word names a gender (such a word says who wears it, not what it is). */
export function isGenderTerm(term: string): boolean {
  return genderTermMap().has(term);
}

/** The gender the description's words name; none when it names both or neither (or `unisex`). */
export function genderOfTerms(terms: readonly string[]): Gender | undefined {
  const map = genderTermMap();
  let found: Gender | undefined;
  for (const t of terms) {
    const g = map.get(t);
    if (!g) continue;
    if (found && found !== g) return undefined;
    found = g;
  }
  return found;
}

/** The gender a row's or subheading's own wording states (`men's or boys'`, `para mujeres o niñas`). */
export function genderOfWording(text: string): Gender | undefined {
  const t = folded(text);
  const female = /\bwomen'?s or girls'?|\bpara mujeres o ninas\b/.test(t);
  const male = /\bmen'?s or boys'?|\bpara hombres o ninos\b/.test(t);
  return female === male ? undefined : female ? 'female' : 'male';
}

/* ---------------- figures ---------------- */

const units: Record<string, [Dimension, number]> = {
  cc: ['cc', 1], cm3: ['cc', 1], 'cm³': ['cc', 1],
  w: ['power', 1], watt: ['power', 1], watts: ['power', 1], kw: ['power', 1000], va: ['power', 1], kva: ['power', 1000],
  hp: ['power', 745.7], cv: ['power', 735.5],
  v: ['voltage', 1], volt: ['voltage', 1], volts: ['voltage', 1], voltios: ['voltage', 1], kv: ['voltage', 1000],
};
const unitPattern = 'cc|cm3|cm³|kva|va|kw|watts?|w|hp|cv|kv|volts?|voltios|v';
const numberPattern = '\\d+(?:[.,]\\d+)?(?:\\s*/\\s*\\d+)?';

function numberOf(text: string, thousands: boolean): number {
  const fraction = /^(\d+)\s*\/\s*(\d+)$/.exec(text);
  if (fraction) return Number(fraction[1]) / Number(fraction[2]);
  // `10,000kVA` in the nomenclature; `1,5 kW` as a courier writes a decimal.
  const clean = thousands || /,\d{3}$/.test(text) ? text.replace(/,/g, '') : text.replace(',', '.');
  return Number(clean);
}

const quantityPattern = new RegExp(`(?<![\\w.])(${numberPattern})\\s*(${unitPattern})(?![a-z0-9])`, 'gi');

/** The figures with a unit a description gives (`Motocicleta 150cc`, `Contactor 220v`, `1/2 HP`). */
export function quantitiesOf(text: string): Quantity[] {
  const out: Quantity[] = [];
  for (const m of text.matchAll(quantityPattern)) {
    const [dim, factor] = units[m[2].toLowerCase()];
    const value = numberOf(m[1], false) * factor;
    if (Number.isFinite(value) && value > 0) out.push({ dim, value });
  }
  return out;
}

/**
 * The ranges a row's or subheading's English wording states: `not exceeding 60 volts`, `exceeding
 * 50cc but not exceeding 250cc`, `over 1500 but not over 3000cc`, `of 125 W or less`.
 */
export function rangesOf(text: string): Range[] {
  const t = text.toLowerCase();
  const out: Range[] = [];
  const u = `(${unitPattern})`;
  const n = `(${numberPattern})`;
  const taken: [number, number][] = [];
  const unit = (s: string | undefined) => (s ? units[s.toLowerCase()] : undefined);
  const push = (at: number, len: number, r: Range) => {
    if (taken.some(([a, b]) => at < b && a < at + len)) return;
    taken.push([at, at + len]);
    out.push(r);
  };
  const between = new RegExp(`(?:exceeding|over|more than)\\s+${n}\\s*${u}?\\s+but\\s+(not exceeding|not over|less than)\\s+${n}\\s*${u}(?![a-z])`, 'g');
  for (const m of t.matchAll(between)) {
    const hi = unit(m[5]);
    const lo = unit(m[2]) ?? hi;
    if (!hi || !lo || lo[0] !== hi[0]) continue;
    push(m.index, m[0].length, { dim: hi[0], min: numberOf(m[1], true) * lo[1], max: numberOf(m[4], true) * hi[1], minIncluded: false, maxIncluded: m[3] !== 'less than' });
  }
  const atMost = new RegExp(`(not exceeding|not over|less than|under)\\s+${n}\\s*${u}(?![a-z])`, 'g');
  for (const m of t.matchAll(atMost)) {
    const k = unit(m[3]);
    if (k) push(m.index, m[0].length, { dim: k[0], min: 0, max: numberOf(m[2], true) * k[1], minIncluded: true, maxIncluded: m[1] !== 'less than' && m[1] !== 'under' });
  }
  const atLeast = new RegExp(`(?<!not )(exceeding|over|more than)\\s+${n}\\s*${u}(?![a-z])`, 'g');
  for (const m of t.matchAll(atLeast)) {
    const k = unit(m[3]);
    if (k) push(m.index, m[0].length, { dim: k[0], min: numberOf(m[2], true) * k[1], max: Infinity, minIncluded: false, maxIncluded: false });
  }
  const suffix = new RegExp(`${n}\\s*${u}\\s+or (less|more)\\b`, 'g');
  for (const m of t.matchAll(suffix)) {
    const k = unit(m[2]);
    if (!k) continue;
    const v = numberOf(m[1], true) * k[1];
    push(m.index, m[0].length, m[3] === 'less' ? { dim: k[0], min: 0, max: v, minIncluded: true, maxIncluded: true } : { dim: k[0], min: v, max: Infinity, minIncluded: true, maxIncluded: false });
  }
  return out;
}

const inRange = (r: Range, v: number) => (r.minIncluded ? v >= r.min : v > r.min) && (r.maxIncluded ? v <= r.max : v < r.max);

/* ---------------- materials ---------------- */

/** What a courier writes for a material (Spanish and English), normalized lazily. */
const materialWords: Record<Material, string> = {
  cotton: 'algodon cotton',
  synthetic: 'nylon poliester polyester poliamida polyamide lycra spandex elastano elastane acrilico acrylic microfibra microfiber microfibre sintetico sintetica synthetic',
  artificial: 'viscosa viscose rayon modal',
  wool: 'lana wool merino cashmere cachemira',
  silk: 'seda silk',
  leather: 'cuero leather',
  wood: 'madera wood wooden bambu bamboo',
  // `iron` alone is also the appliance (a steam iron): only the Spanish `hierro` reads as the metal.
  steel: 'acero steel hierro',
  stainless: 'inoxidable stainless inox',
  aluminium: 'aluminio aluminium aluminum',
  plastic: 'plastico plastica plastic',
  glass: 'vidrio glass',
  ceramic: 'ceramica ceramico ceramic porcelana porcelain',
};

const materialTermMap = termMap<Material>(Object.entries(materialWords) as [Material, string][]);

/** Materials that name no sibling of the table (articles of silicone fall under several chapters), but are materials all the same. */
const otherMaterials = termMap<true>([[true, 'silicona silicone']]);

/** Whether a normalized word names a material. */
export function isMaterialTerm(term: string): boolean {
  return materialTermMap().has(term) || otherMaterials().has(term);
}

/** The materials the description's words name. */
export function materialsOfTerms(terms: readonly string[]): Material[] {
  const map = materialTermMap();
  const out = new Set<Material>();
  for (const t of terms) {
    const m = map.get(t);
    if (m) out.add(m);
  }
  return [...out];
}

/** The materials a row's own wording (Spanish and English descriptions) says it is made of. */
export function materialsOfWording(text: string): Material[] {
  const t = folded(text);
  const out = new Set<Material>();
  const has = (re: RegExp) => re.test(t);
  if (has(/\bde algodon\b|\bof cotton\b/)) out.add('cotton');
  if (has(/fibras sinteticas|synthetic fibres|man-made fibres|\bsynthetic\b/)) out.add('synthetic');
  if (has(/fibras (?:sinteticas o )?artificiales|artificial fibres|man-made fibres/)) out.add('artificial');
  if (has(/\bde lana\b|\bof wool\b/)) out.add('wool');
  if (has(/\bde seda\b|\bof silk\b/)) out.add('silk');
  if (has(/\bcuero\b|\bleather\b/)) out.add('leather');
  if (has(/\bde madera\b|\bof wood\b/)) out.add('wood');
  if (has(/acero inoxidable|stainless steel/)) out.add('stainless');
  if (has(/\bacero\b|\bsteel\b|\bde hierro\b|\bof iron\b/)) out.add('steel');
  if (has(/\bde aluminio\b|\bof aluminium\b/)) out.add('aluminium');
  if (has(/\bde plastico\b|\bof plastics?\b/)) out.add('plastic');
  if (has(/\bde vidrio\b|\bof glass\b/)) out.add('glass');
  if (has(/\bceramic|\bporcelan/)) out.add('ceramic');
  return [...out];
}

/**
 * Whether goods of this code's chapter may have an engine measured by its cylinder capacity:
 * machines and engines (84), generating sets (8502, in 85), vehicles (87), aircraft (88) and boats
 * (89). A description that gives a capacity in cc (`Scooter 50cc`) names a machine with an engine,
 * which a toy scooter (9503) or a garment is not.
 */
export function mayHaveEngine(code: string): boolean {
  return /^8[4-9]/.test(code.replace(/\D/g, ''));
}

/**
 * What a tariff row's or HS subheading's own wording states: the gender of a garment (chapters 61
 * and 62), the ranges of its figures, whether its chapter may have an engine, and (for the table's
 * rows, whose materials are compared as attributes) its materials.
 */
export function wordingAttributes(code: string, wording: string, opts: { materials?: boolean } = {}): Attributes {
  const garment = /^6[12]/.test(code.replace(/\D/g, ''));
  return {
    garment,
    gender: garment ? genderOfWording(wording) : undefined,
    ranges: rangesOf(wording),
    ...(opts.materials ? { materials: materialsOfWording(wording) } : {}),
    engine: mayHaveEngine(code),
  };
}

/* ---------------- appearance ---------------- */

/**
 * Words for how a product looks, Spanish and English: finishes (`matte`, `metallic`, `glitter`,
 * `satin`) and metallic colours (`dorado`, `golden`, `plateado`). They describe a lipstick or a nail
 * polish, not what it is; in the nomenclature the same words name metals and their forms (nickel
 * mattes 7501.10, metallic binders 3824.30). Plain colours (`verde`, `black`, `white`) are left out:
 * green tea, black tea and white wine are kinds of goods.
 */
const appearanceWords =
  'mate matte matt metalico metalica metalizado metalizada metallic glitter brillantina shimmer shimmery satin satinado satinada glossy ' +
  'perlado perlada nacarado nacarada pearly holografico holografica holographic tornasolado tornasolada iridescent cromado cromada chrome ' +
  'dorado dorada golden plateado plateada cobrizo cobriza rosegold';

/**
 * The metals a colour is named after (`gold eyeliner`, `iluminador oro`), which are also what jewellery
 * and metal goods are made of (`collar de plata`, `copper pipe`): they count as appearance where the
 * table and the HS tier are compared, but stay the keywords of the jewellery rows.
 */
const metalColourWords = 'oro plata cobre bronce gold silver copper bronze';

const appearanceTermMap = termMap<'look' | 'metal'>([
  ['look', appearanceWords],
  ['metal', metalColourWords],
]);

/** Whether a normalized word says how a product looks (a finish, a metallic colour, a metal's name), not what it is. */
export function isAppearanceTerm(term: string): boolean {
  return appearanceTermMap().has(term);
}

/** Whether a normalized word is only a finish or a colour (not also the name of a metal goods are made of). */
export function isFinishTerm(term: string): boolean {
  return appearanceTermMap().get(term) === 'look';
}

/* ---------------- agreement ---------------- */

/** A row or subheading of the other gender than the description names. */
export const otherGenderFactor = 0.5;
/** A men's or boys' garment when the description names no gender (chapter 61 note 9, chapter 62 note 8). */
export const unspecifiedMaleFactor = 0.8;
/** A row or subheading whose stated range excludes every figure the description gives in that unit. */
export const outOfRangeFactor = 0.5;
/** A row or subheading whose stated range holds the description's figure: the figure says it is of that kind. */
export const inRangeFactor = 1.2;
/** A row of a chapter without engines, when the description gives a cylinder capacity. */
export const noEngineFactor = 0.5;
/** A row made of a material the description does not name, when the description names one. */
export const otherMaterialFactor = 0.6;

/**
 * Whether the description's own figures rule the row out: a figure its stated range excludes (in
 * every range of that unit), or a cylinder capacity for a row of a chapter without engines. Such a
 * row may still be the best the table has, but never a sure answer.
 */
export function contradicts(query: Attributes, row: Attributes): boolean {
  if (row.engine === false && query.quantities?.some((q) => q.dim === 'cc')) return true;
  if (!query.quantities?.length || !row.ranges?.length) return false;
  return [...new Set(row.ranges.map((r) => r.dim))].some((dim) => {
    const values = query.quantities!.filter((q) => q.dim === dim).map((q) => q.value);
    const ranges = row.ranges!.filter((r) => r.dim === dim);
    return values.length > 0 && !values.some((v) => ranges.every((r) => inRange(r, v)));
  });
}

/**
 * How much a row or subheading keeps of its score given what the description says: 1 when nothing
 * disagrees, less when its wording names the other gender, a range that excludes the description's
 * figure, or a material the description does not name, or when its chapter has no engines and the
 * description gives a cylinder capacity.
 */
export function attributeFactor(query: Attributes, row: Attributes): number {
  let f = 1;
  if (row.garment && row.gender) {
    if (query.gender && query.gender !== row.gender) f *= otherGenderFactor;
    else if (!query.gender && row.gender === 'male') f *= unspecifiedMaleFactor;
  }
  if (query.quantities?.length && row.ranges?.length) {
    for (const dim of new Set(row.ranges.map((r) => r.dim))) {
      const values = query.quantities.filter((q) => q.dim === dim).map((q) => q.value);
      if (!values.length) continue;
      const ranges = row.ranges.filter((r) => r.dim === dim);
      f *= values.some((v) => ranges.every((r) => inRange(r, v))) ? inRangeFactor : outOfRangeFactor;
    }
  }
  if (query.materials?.length && row.materials?.length && !query.materials.some((m) => row.materials!.includes(m))) f *= otherMaterialFactor;
  if (row.engine === false && query.quantities?.some((q) => q.dim === 'cc')) f *= noEngineFactor;
  return f;
}
