import type { ManifestItem } from '../manifests/submission';
import { matchProhibited, normalizeText, prohibitedGoods, type ProhibitedEntry, type ProhibitedMatch } from './prohibited';
import type { RegimeRules } from './regime-rules';
import { checkTaxId } from './tax-id';

/**
 * Classification stage: the regime of every item, decided per shipment (the items of one AWB).
 * Pure: the rules in force and the prohibited list come in as values.
 *
 * In this order:
 * 1. `X`, per item: the item matches the prohibited-goods list (description or item name,
 *    category, HS code). Only that item is `X`; the rest of the shipment is judged without it
 *    (a seized item does not travel on with the shipment).
 * 2. `X`, the whole shipment: the shipment is over the courier limits, so it cannot clear under
 *    the courier regime at all: FOB summed over the shipment above `max_fob_usd_per_shipment`, or
 *    weight above `max_kg_per_package` (the whole shipment's net weight before RG 5631/2025; each
 *    package's after it, a line's packages being `amountOfPackages` (1 when absent) sharing the
 *    line's `totalWeightKg` evenly).
 * 3. `C`, the whole shipment: the consignee is a company (CUIT prefix 30, 33, 34) or an
 *    international-purpose id (50, 51, 55), or more than `max_units_same_kind` units of one kind.
 *    Units are `amountOfItems` (1 when absent or 0). Two lines are of the same kind when they
 *    share the HS subheading (the first 6 digits of `hsCode`) or the same normalized description
 *    (`itemDescription`, else `itemName`; accents, case and punctuation ignored): both groupings
 *    are counted and either one over the limit makes the shipment commercial.
 * 4. `P` otherwise. The yearly quota is applied afterwards by the web-services stage, which may
 *    turn a `P` into a `C`.
 *
 * Every item keeps the reasons of its decision.
 */

export type Regime = 'P' | 'C' | 'X';

export interface RegimeDecision {
  regime: Regime;
  reasons: string[];
  /** Set on an item that is `X` because of the prohibited list. */
  prohibited?: ProhibitedMatch;
}

export interface ClassifyItem {
  itemKey: string;
  awb: string;
  data: ManifestItem;
}

export interface ClassifyOptions {
  /** The prohibited-goods list (default: the built-in one). */
  prohibited?: readonly ProhibitedEntry[];
}

/** Amounts are summed in units of 0.0001 so no float drift decides a limit. */
const SCALE = 10_000;
const scaled = (n: number | undefined) => (typeof n === 'number' && Number.isFinite(n) ? Math.round(n * SCALE) : 0);

function usd(scaledAmount: number): string {
  const cents = Math.round(scaledAmount / 100);
  const whole = Math.floor(cents / 100).toLocaleString('en-US');
  return `USD ${whole}.${String(cents % 100).padStart(2, '0')}`;
}

const kg = (scaledKg: number) => `${Number((scaledKg / SCALE).toFixed(3))} kg`;

const unitsOf = (d: ManifestItem) => (typeof d.amountOfItems === 'number' && d.amountOfItems >= 1 ? Math.floor(d.amountOfItems) : 1);

/** The prohibited-goods match of one item: description, category and HS code, then the item name. */
export function prohibitedMatchOf(d: ManifestItem, list: readonly ProhibitedEntry[] = prohibitedGoods): ProhibitedMatch | null {
  return (
    matchProhibited({ description: d.itemDescription, category: d.Category, hsCode: d.hsCode }, list) ??
    (d.itemName ? matchProhibited({ description: d.itemName }, list) : null)
  );
}

export function classifyShipments(items: readonly ClassifyItem[], rules: RegimeRules, opts: ClassifyOptions = {}): Map<string, RegimeDecision> {
  const list = opts.prohibited ?? prohibitedGoods;
  const out = new Map<string, RegimeDecision>();
  const byAwb = new Map<string, ClassifyItem[]>();
  for (const it of items) {
    const group = byAwb.get(it.awb);
    if (group) group.push(it);
    else byAwb.set(it.awb, [it]);
  }
  for (const shipment of byAwb.values()) classifyShipment(shipment, rules, list, out);
  return out;
}

function classifyShipment(shipment: ClassifyItem[], rules: RegimeRules, list: readonly ProhibitedEntry[], out: Map<string, RegimeDecision>): void {
  // 1. prohibited goods, item by item
  const rest: ClassifyItem[] = [];
  for (const it of shipment) {
    const match = prohibitedMatchOf(it.data, list);
    if (match) {
      const on = match.matchedOn === 'tariff_code' ? `tariff code starts with ${match.term}` : `${match.matchedOn} matches "${match.term}"`;
      out.set(it.itemKey, { regime: 'X', reasons: [`prohibited goods: ${match.label} (${on})`], prohibited: match });
    } else rest.push(it);
  }
  if (!rest.length) return;
  const set = (regime: Regime, reasons: string[]) => {
    for (const it of rest) out.set(it.itemKey, { regime, reasons: [...reasons] });
  };

  // 2. courier limits
  const limits: string[] = [];
  const cannot = `cannot clear under the courier regime (${rules.source})`;
  const fob = rest.reduce((s, it) => s + scaled(it.data.fobValueUsd), 0);
  if (fob > rules.max_fob_usd_per_shipment * SCALE) {
    limits.push(`shipment FOB ${usd(fob)} is over the courier limit of ${usd(rules.max_fob_usd_per_shipment * SCALE)} per shipment: ${cannot}`);
  }
  const maxKg = rules.max_kg_per_package * SCALE;
  if (rules.weight_limit_applies_to === 'shipment') {
    const weight = rest.reduce((s, it) => s + scaled(it.data.totalWeightKg), 0);
    if (weight > maxKg) limits.push(`shipment weight ${kg(weight)} is over the courier limit of ${kg(maxKg)} per shipment: ${cannot}`);
  } else {
    let heaviest: { perPackage: number; it: ClassifyItem } | undefined;
    for (const it of rest) {
      const packages = typeof it.data.amountOfPackages === 'number' && it.data.amountOfPackages >= 1 ? Math.floor(it.data.amountOfPackages) : 1;
      const perPackage = scaled(it.data.totalWeightKg) / packages;
      if (!heaviest || perPackage > heaviest.perPackage) heaviest = { perPackage, it };
    }
    if (heaviest && heaviest.perPackage > maxKg) {
      limits.push(`a package of line ${heaviest.it.itemKey} weighs ${kg(heaviest.perPackage)}, over the courier limit of ${kg(maxKg)} per package: ${cannot}`);
    }
  }
  if (limits.length) return set('X', limits);

  // 3. commercial
  const commercial: string[] = [];
  const consignee = consigneeOf(rest);
  if (consignee.company) commercial.push(`consignee is a company (${consignee.company})`);
  if (consignee.international) commercial.push(`consignee's tax id is for international purposes (${consignee.international}), not a resident person`);
  const byHs = new Map<string, number>();
  const byDescription = new Map<string, { units: number; text: string }>();
  for (const it of rest) {
    const units = unitsOf(it.data);
    const hs = (it.data.hsCode ?? '').replace(/\D/g, '');
    if (hs.length >= 6) byHs.set(hs.slice(0, 6), (byHs.get(hs.slice(0, 6)) ?? 0) + units);
    const text = it.data.itemDescription ?? it.data.itemName ?? '';
    const key = normalizeText(text);
    if (key) {
      const g = byDescription.get(key) ?? { units: 0, text: text.trim() };
      g.units += units;
      byDescription.set(key, g);
    }
  }
  const max = rules.max_units_same_kind;
  const overKinds: string[] = [];
  for (const [hs6, units] of byHs) if (units > max) overKinds.push(`${units} units of HS ${hs6}`);
  for (const g of byDescription.values()) if (g.units > max) overKinds.push(`${g.units} units of "${g.text.slice(0, 80)}"`);
  if (overKinds.length) commercial.push(`more than ${max} units of the same kind (${overKinds.join('; ')}): not a personal shipment`);
  if (commercial.length) return set('C', commercial);

  // 4. personal
  const reasons = [
    consignee.person
      ? `personal: the consignee is a person (${consignee.person})`
      : `personal: the consignee's kind is not known from the tax id (${consignee.problem ?? 'no tax id'}); the tax-id check decides`,
    `within the courier limits: FOB ${usd(fob)} of ${usd(rules.max_fob_usd_per_shipment * SCALE)}, at most ${max} units of a kind (${rules.source})`,
  ];
  set('P', reasons);
}

/** What the shipment's tax ids say about its consignee (any line naming a company makes it one). */
function consigneeOf(items: ClassifyItem[]) {
  const found: { company?: string; international?: string; person?: string; problem?: string } = {};
  for (const it of items) {
    if (!it.data.consigneeIdNumber) continue;
    const c = checkTaxId(it.data.consigneeIdNumber, it.data.consigneeIdType);
    const label = `${c.type ?? 'tax id'} ${c.formatted ?? c.digits ?? it.data.consigneeIdNumber}`;
    if (c.kind === 'company') found.company ??= label;
    else if (c.kind === 'international') found.international ??= label;
    else if (c.kind === 'person' && c.valid) found.person ??= label;
    else found.problem ??= c.reason;
  }
  return found;
}

/** The regime of a whole shipment from its items' decisions: P if any item is P, else C if any is C, else X. */
export function shipmentRegime(decisions: Iterable<{ regime: Regime }>): Regime {
  let best: Regime = 'X';
  for (const d of decisions) {
    if (d.regime === 'P') return 'P';
    if (d.regime === 'C') best = 'C';
  }
  return best;
}
