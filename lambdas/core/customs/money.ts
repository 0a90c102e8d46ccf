/**
 * Exact money for the calculations stage (DESIGN.md: "money without float drift").
 *
 * - Amounts are integer **cents** held in a `bigint` (`Cents`). They never pass through a float.
 * - Rates, percentages and weights are exact decimals (`Dec`: an integer mantissa and a count of
 *   decimal places), read from the decimal text of the JSON number: `String(0.1)` is `'0.1'`, the
 *   text the client wrote, so 0.1 becomes 1/10 exactly, never 0.1000000000000000055...
 * - Rounding happens in exactly one place, `divRound`: half up (half away from zero; every amount
 *   here is non-negative), to whole cents, once per calculation step. Each step of the calculation
 *   says which product it rounds (`decTimesToCents`, `percentOf`, `mulDiv`), so a breakdown can be redone
 *   with a calculator.
 * - Shipment-level amounts that are split across products are split with `allocate` (largest
 *   remainder), so the parts always add up to the whole, to the cent.
 * - Out: `toNumber` gives the JSON number of the 2-decimal value (12.5 for 1250n; JSON has no
 *   trailing zeros), `formatCents` the text with exactly 2 decimals ('12.50') for explanations.
 */

export type Cents = bigint;

/** An exact decimal: value = units / 10^scale (scale >= 0). */
export type Dec = { readonly units: bigint; readonly scale: number };

const DECIMAL_TEXT = /^([+-]?)(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i;

const pow10 = (n: number): bigint => 10n ** BigInt(n);

/**
 * A JSON number (or its decimal text) as an exact decimal. Uses the shortest decimal text of the
 * number, which is what the client wrote: 12.5 -> {125, 1}, 1e-7 -> {1, 7}, 1e21 -> {10^21, 0}.
 */
export function parseDec(x: number | string): Dec {
  if (typeof x === 'number' && !Number.isFinite(x)) throw new RangeError(`not a finite number: ${x}`);
  const text = String(x).trim();
  const m = DECIMAL_TEXT.exec(text);
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) throw new RangeError(`not a decimal number: ${JSON.stringify(x)}`);
  const [, sign, whole, frac = '', exp = '0'] = m;
  let units = BigInt((sign === '-' ? '-' : '') + (whole + frac || '0'));
  let scale = frac.length - Number(exp);
  if (scale < 0) {
    units *= pow10(-scale);
    scale = 0;
  }
  return normalize({ units, scale });
}

/** Drops trailing zero decimals: {1250, 2} -> {125, 1}. Equal values get equal representations. */
function normalize(d: Dec): Dec {
  let { units, scale } = d;
  while (scale > 0 && units % 10n === 0n) {
    units /= 10n;
    scale -= 1;
  }
  return { units, scale };
}

export const decZero: Dec = { units: 0n, scale: 0 };

/** The two decimals' units at a common scale. */
function aligned(a: Dec, b: Dec): [bigint, bigint, number] {
  const scale = Math.max(a.scale, b.scale);
  return [a.units * pow10(scale - a.scale), b.units * pow10(scale - b.scale), scale];
}

export function decCompare(a: Dec, b: Dec): -1 | 0 | 1 {
  const [x, y] = aligned(a, b);
  return x < y ? -1 : x > y ? 1 : 0;
}

export function decAdd(a: Dec, b: Dec): Dec {
  const [x, y, scale] = aligned(a, b);
  return normalize({ units: x + y, scale });
}

export function decMax(a: Dec, b: Dec): Dec {
  return decCompare(a, b) >= 0 ? a : b;
}

/** The decimals' units at one common scale (the largest), for integer weights of an allocation. */
export function decUnitsAtCommonScale(values: readonly Dec[]): bigint[] {
  const scale = values.reduce((s, d) => Math.max(s, d.scale), 0);
  return values.map((d) => d.units * pow10(scale - d.scale));
}

/** A decimal as plain text without exponent: {125, 1} -> '12.5', {3, 0} -> '3'. */
export function formatDec(d: Dec): string {
  const neg = d.units < 0n;
  const digits = (neg ? -d.units : d.units).toString();
  if (d.scale === 0) return `${neg ? '-' : ''}${digits}`;
  const padded = digits.padStart(d.scale + 1, '0');
  return `${neg ? '-' : ''}${padded.slice(0, -d.scale)}.${padded.slice(-d.scale)}`;
}

/**
 * num / den rounded half up (half away from zero), den > 0. The only rounding in the calculations.
 */
export function divRound(num: bigint, den: bigint): bigint {
  if (den <= 0n) throw new RangeError('division by a non-positive number');
  const neg = num < 0n;
  const a = neg ? -num : num;
  let q = a / den;
  if ((a % den) * 2n >= den) q += 1n;
  return neg ? -q : q;
}

/**
 * A USD amount as cents. More than 2 decimals are rounded half up to the cent (12.345 -> 1235n):
 * the one rounding of an input amount. 12.5 -> 1250n, 0.1 -> 10n, exactly.
 */
export function toCents(x: number | string): Cents {
  const d = parseDec(x);
  return d.scale <= 2 ? d.units * pow10(2 - d.scale) : divRound(d.units, pow10(d.scale - 2));
}

/** Like `toCents`, but refuses an amount with more than 2 decimals instead of rounding it. */
export function toCentsExact(x: number | string): Cents {
  const d = parseDec(x);
  if (d.scale > 2) throw new RangeError(`more than 2 decimals: ${formatDec(d)}`);
  return d.units * pow10(2 - d.scale);
}

/** Cents as text with exactly 2 decimals: 1250n -> '12.50', -5n -> '-0.05'. */
export function formatCents(c: Cents): string {
  return formatDec({ units: c, scale: 2 });
}

/** Cents as the JSON number of its 2-decimal value: 1250n -> 12.5, 1999n -> 19.99. */
export function toNumber(c: Cents): number {
  return Number(formatDec({ units: c, scale: 2 }));
}

/** An amount of USD given as a decimal (a price per kg) x a decimal quantity, rounded half up to the cent. */
export function decTimesToCents(usd: Dec, quantity: Dec): Cents {
  return divRound(usd.units * quantity.units * 100n, pow10(usd.scale + quantity.scale));
}

/** `percent` percent of the cents, rounded half up to the cent: percentOf(10000n, 21) -> 2100n. */
export function percentOf(c: Cents, percent: Dec): Cents {
  return divRound(c * percent.units, 100n * pow10(percent.scale));
}

/** c x num / den, rounded half up to the cent (a proportional share; den > 0). */
export function mulDiv(c: Cents, num: bigint, den: bigint): Cents {
  return divRound(c * num, den);
}

export const sumCents = (values: Iterable<Cents>): Cents => {
  let s = 0n;
  for (const v of values) s += v;
  return s;
};

export const minCents = (a: Cents, b: Cents): Cents => (a < b ? a : b);

/**
 * Splits `total` (>= 0) into parts proportional to `weights` (each >= 0) that add up to `total`
 * exactly: the largest-remainder method. Every part starts at floor(total x w / sum(w)); the cents
 * left over go one each to the parts with the largest remainders, ties to the earlier part, so the
 * result depends only on the inputs and their order. All weights 0: equal parts (by the same rule).
 * A part never exceeds its exact share rounded up, so a share of a total <= sum(weights) never
 * exceeds its own weight.
 */
export function allocate(total: Cents, weights: readonly bigint[]): Cents[] {
  if (total < 0n) throw new RangeError('cannot allocate a negative total');
  if (weights.some((w) => w < 0n)) throw new RangeError('allocation weights must be >= 0');
  if (weights.length === 0) {
    if (total !== 0n) throw new RangeError('cannot allocate an amount to no parts');
    return [];
  }
  const sum = sumCents(weights);
  const ws = sum === 0n ? weights.map(() => 1n) : weights;
  const den = sum === 0n ? BigInt(weights.length) : sum;
  const parts = ws.map((w) => (total * w) / den);
  const remainders = ws.map((w, i) => ({ i, r: (total * w) % den }));
  let left = total - sumCents(parts);
  remainders.sort((a, b) => (a.r === b.r ? a.i - b.i : a.r > b.r ? -1 : 1));
  for (let k = 0; left > 0n; k++, left--) parts[remainders[k].i] += 1n;
  return parts;
}
