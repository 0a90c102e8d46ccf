/**
 * Argentine tax ids (domain/customs-ar.md, "Tax ids"): CUIT and CUIL of 11 digits with a check
 * digit, and the DNI of 7 or 8 digits. Pure: no I/O.
 *
 * - Hyphens, dots and spaces are accepted anywhere and dropped (`20-12345678-6`, `20.12345678.6`).
 * - 11 digits: the prefix says who (20, 23, 24, 27 a person; 30, 33, 34 a company; 50, 51, 55
 *   international purposes) and the last digit must be the check digit: the first 10 digits times
 *   5,4,3,2,7,6,5,4,3,2, summed, modulo 11; the check digit is 11 minus that, where 11 gives 0 and
 *   10 gives 9.
 * - 7 or 8 digits: a DNI, a person; it has no check digit, so only its format is checked.
 * - The declared type (`consigneeIdType`) names CUIT or CUIL when it is one of them; otherwise
 *   the type follows from the digits (a person's 11 digits read as CUIL, a company's or an
 *   international one's as CUIT). A declared CUIT/CUIL with 7 or 8 digits is invalid; a declared
 *   DNI that is really 11 digits is read as the CUIT/CUIL it is (the reason says so).
 */

export type TaxIdKind = 'person' | 'company' | 'international' | 'unknown';
export type TaxIdType = 'CUIT' | 'CUIL' | 'DNI';

export interface TaxIdCheck {
  /** The digits once hyphens, dots and spaces are dropped; null when there is nothing usable. */
  digits: string | null;
  /** `XX-XXXXXXXX-X` for 11 digits, the DNI as it is; null when there are no usable digits. */
  formatted: string | null;
  kind: TaxIdKind;
  type: TaxIdType | null;
  valid: boolean;
  /** Why it is valid or not, in words an operator can act on. */
  reason: string;
}

export const checkDigitWeights = [5, 4, 3, 2, 7, 6, 5, 4, 3, 2] as const;

export const taxIdPrefixes: Readonly<Record<string, Exclude<TaxIdKind, 'unknown'>>> = {
  '20': 'person',
  '23': 'person',
  '24': 'person',
  '27': 'person',
  '30': 'company',
  '33': 'company',
  '34': 'company',
  '50': 'international',
  '51': 'international',
  '55': 'international',
};

/** The check digit of the first 10 digits of a CUIT/CUIL (11 -> 0, 10 -> 9). */
export function cuitCheckDigit(first10: string): number {
  if (!/^\d{10}$/.test(first10)) throw new RangeError('cuitCheckDigit needs exactly 10 digits');
  let sum = 0;
  for (let i = 0; i < 10; i++) sum += Number(first10[i]) * checkDigitWeights[i];
  const d = 11 - (sum % 11);
  return d === 11 ? 0 : d === 10 ? 9 : d;
}

export const formatCuit = (digits: string) => `${digits.slice(0, 2)}-${digits.slice(2, 10)}-${digits.slice(10)}`;

const none = (reason: string, digits: string | null = null): TaxIdCheck => ({ digits, formatted: null, kind: 'unknown', type: null, valid: false, reason });

export function checkTaxId(raw: string | undefined | null, type?: string | null): TaxIdCheck {
  const text = (raw ?? '').trim();
  if (!text) return none('no tax id');
  if (!/^[\d\s.-]+$/.test(text)) return none('a tax id has digits only (hyphens, dots and spaces are allowed between them)');
  const digits = text.replace(/[\s.-]/g, '');
  if (!digits) return none('no tax id');
  const declared = (type ?? '').trim().toUpperCase();
  const declaredCuit = declared === 'CUIT' || declared === 'CUIL' ? (declared as 'CUIT' | 'CUIL') : null;

  if (digits.length === 7 || digits.length === 8) {
    if (declaredCuit) return { ...none(`a ${declaredCuit} has 11 digits; ${digits} has ${digits.length}`, digits), formatted: digits, kind: 'person' };
    if (/^0+$/.test(digits)) return { ...none('a DNI cannot be all zeros', digits), formatted: digits };
    return { digits, formatted: digits, kind: 'person', type: 'DNI', valid: true, reason: 'DNI: format checked (a DNI has no check digit)' };
  }
  if (digits.length !== 11) {
    return none(`a CUIT or CUIL has 11 digits and a DNI 7 or 8; ${digits} has ${digits.length}`, digits);
  }

  const formatted = formatCuit(digits);
  const prefix = digits.slice(0, 2);
  const kind = taxIdPrefixes[prefix];
  const inferred: 'CUIT' | 'CUIL' = kind === 'person' ? 'CUIL' : 'CUIT';
  const resolvedType = declaredCuit ?? inferred;
  if (!kind) {
    return {
      digits,
      formatted,
      kind: 'unknown',
      type: resolvedType,
      valid: false,
      reason: `prefix ${prefix} is not a CUIT/CUIL prefix (20, 23, 24, 27 persons; 30, 33, 34 companies; 50, 51, 55 international)`,
    };
  }
  const expected = cuitCheckDigit(digits.slice(0, 10));
  const given = Number(digits[10]);
  if (expected !== given) {
    return {
      digits,
      formatted,
      kind,
      type: resolvedType,
      valid: false,
      reason: `check digit of ${resolvedType} ${formatted} is ${given}, expected ${expected}`,
    };
  }
  const who = kind === 'person' ? 'a person' : kind === 'company' ? 'a company' : 'international purposes';
  const note = declared === 'DNI' ? ' (declared DNI, but the number is an 11-digit CUIT/CUIL)' : '';
  return { digits, formatted, kind, type: resolvedType, valid: true, reason: `valid ${resolvedType} of ${who} (prefix ${prefix})${note}` };
}

/**
 * Whom a personal-shipment quota belongs to: one person, whichever id names them. A person's
 * CUIL or CUIT (prefix 20, 23, 24, 27) carries the DNI as its middle 8 digits, so a CUIL and its
 * DNI share one quota: both map to `DNI<8 digits>`. Any other valid id is its own holder (its
 * digits); an invalid one holds no quota (null).
 */
export function quotaHolder(check: TaxIdCheck): string | null {
  if (!check.valid || !check.digits) return null;
  if (check.type === 'DNI') return `DNI${check.digits.padStart(8, '0')}`;
  if (check.kind === 'person') return `DNI${check.digits.slice(2, 10)}`;
  return check.digits;
}
