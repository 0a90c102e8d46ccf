/**
 * Package measures as the carriers want them. Despacho keeps kilograms and centimetres (the ship
 * body's units); a carrier that wants pounds and inches gets them converted here, rounded up so a
 * package is never declared lighter or smaller than it is (a carrier re-weighs and bills the
 * difference, with a surcharge).
 *
 * Exact factors: 1 lb = 0.45359237 kg (the international pound of 1959), 1 in = 2.54 cm.
 */
export const kgPerLb = 0.45359237;
export const cmPerIn = 2.54;

export type MeasureSystem = 'metric' | 'imperial';

/** Rounds up to `decimals`, ignoring the last float bits (2.2 * 10 is 22.000000000000004, not 23). */
export function ceilTo(value: number, decimals: number): number {
  const scale = 10 ** decimals;
  const scaled = Math.round(value * scale * 1e6) / 1e6;
  return Math.ceil(scaled) / scale;
}

/** Kilograms to pounds, rounded up to `decimals` (1 by default: the carriers take tenths). */
export const kgToLb = (kg: number, decimals = 1): number => ceilTo(kg / kgPerLb, decimals);
/** Centimetres to inches, rounded up to whole inches by default (FedEx and UPS take integers). */
export const cmToIn = (cm: number, decimals = 0): number => ceilTo(cm / cmPerIn, decimals);
/**
 * Pounds to kilograms and inches to centimetres (a quote given in pounds and inches), exact: not
 * rounded, so a carrier that wants pounds again gets what was sent (4.4 lb stays 4.4, not 4.5).
 */
export const lbToKg = (lb: number): number => lb * kgPerLb;
export const inToCm = (inches: number): number => inches * cmPerIn;

export interface PackageMeasures {
  /** kg */
  weight: number;
  /** cm */
  length: number;
  width: number;
  height: number;
}

export interface ConvertedPackage {
  weight: number;
  length: number;
  width: number;
  height: number;
  weightUnit: 'KG' | 'LB';
  dimensionUnit: 'CM' | 'IN';
}

/**
 * A package in `system`: metric keeps kg to 0.1 (rounded up, at least 0.1) and whole cm (rounded
 * up); imperial gives lb to 0.1 and whole inches, both rounded up.
 */
export function packageIn(system: MeasureSystem, p: PackageMeasures): ConvertedPackage {
  if (system === 'imperial') {
    return { weight: Math.max(0.1, kgToLb(p.weight)), length: cmToIn(p.length), width: cmToIn(p.width), height: cmToIn(p.height), weightUnit: 'LB', dimensionUnit: 'IN' };
  }
  return { weight: Math.max(0.1, ceilTo(p.weight, 1)), length: ceilTo(p.length, 0), width: ceilTo(p.width, 0), height: ceilTo(p.height, 0), weightUnit: 'KG', dimensionUnit: 'CM' };
}

/**
 * FedEx and UPS want the units of the origin country: pounds and inches from the United States
 * (and the two other countries that never went metric, Liberia and Myanmar), kilograms and
 * centimetres from everywhere else.
 */
export function systemOfOrigin(country: string): MeasureSystem {
  return ['US', 'LR', 'MM', 'PR'].includes(country.toUpperCase()) ? 'imperial' : 'metric';
}
