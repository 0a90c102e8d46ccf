import { ValidationFailed } from '#core/errors';
import type { CarrierShipmentRequest, CarrierTracking } from '../carrier';

/**
 * What the four carrier mappings share: the service tables, the checks every carrier makes before
 * a request leaves (phones, one package for USPS), cutting text to a carrier's field lengths,
 * and reading base64 labels.
 */

/** A service table (services.json): the name callers send (lower case) -> the carrier's code and display name. */
export type ServiceTable = Readonly<Record<string, { code: string; name: string; international: boolean | null }>>;

export function serviceCode(carrier: string, table: ServiceTable, service: string): string {
  const found = Object.hasOwn(table, service) ? table[service] : undefined;
  if (!found) throw new ValidationFailed({ service: [`${carrier} offers ${Object.keys(table).join(', ')}.`] });
  return found.code;
}

/** The caller's name of a carrier code (the first in the table), or the code lower-cased. */
export function serviceOfCode(table: ServiceTable, code: string): string {
  return Object.entries(table).find(([, s]) => s.code === code)?.[0] ?? code.toLowerCase();
}

/** Text cut to `max` characters (the carriers refuse longer fields rather than cutting them). */
export const cut = (s: string | null | undefined, max: number): string => (s ?? '').trim().slice(0, max);

/** Digits (and a leading +) of a phone number. */
export const phoneDigits = (p: string | null): string => (p ?? '').replace(/[^\d+]/g, '').replace(/(?!^)\+/g, '');

export const isInternational = (req: Pick<CarrierShipmentRequest, 'shipper' | 'recipient'>): boolean => req.shipper.country !== req.recipient.country;

/**
 * The carriers' APIs require both phones: a 422 naming where to set each one, before any call.
 * The shipper's is the warehouse's (`phone` in PUT /v1/warehouses/{id}); the recipient's is the
 * shipping address's, else the customer's.
 */
export function requirePhones(carrier: string, req: Pick<CarrierShipmentRequest, 'shipper' | 'recipient'>): void {
  const problems: Record<string, string[]> = {};
  if (phoneDigits(req.shipper.phone).replace('+', '').length < 6) problems.warehouse_id = [`${carrier} needs the ship-from warehouse's phone; add phone with PUT /v1/warehouses/{id}.`];
  if (phoneDigits(req.recipient.phone).replace('+', '').length < 6) {
    problems['shipping_address.phone'] = [`${carrier} needs the recipient's phone; set shipping_address.phone with PUT /v1/orders/{id}.`];
  }
  if (Object.keys(problems).length) throw new ValidationFailed(problems);
}

/** A label a carrier returned as base64, checked to be the PDF it says it is. */
export function pdfFromBase64(carrier: string, b64: unknown): Buffer {
  if (typeof b64 !== 'string' || b64 === '') throw new CarrierAnswerUnreadable(carrier, 'the answer carries no label');
  const pdf = Buffer.from(b64, 'base64');
  if (pdf.subarray(0, 5).toString('latin1') !== '%PDF-') throw new CarrierAnswerUnreadable(carrier, 'the label is not a PDF');
  return pdf;
}

/** A carrier answered 2xx with something the mapping cannot read (the adapter answers 502). */
export class CarrierAnswerUnreadable extends Error {
  override readonly name = 'CarrierAnswerUnreadable';
  constructor(
    readonly carrier: string,
    readonly detail: string,
  ) {
    super(`${carrier}: ${detail}`);
  }
}

/** A money amount of a carrier (a number or a numeric string), to 2 decimals; NaN is unreadable. */
export function amountOf(carrier: string, value: unknown): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isFinite(n)) throw new CarrierAnswerUnreadable(carrier, `an amount is not a number: ${JSON.stringify(value)}`);
  return Math.round(n * 100) / 100;
}

/** The date part (YYYY-MM-DD) of a carrier's date or date-time, or null. */
export function dayOf(value: unknown): string | null {
  return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(value) ? value.slice(0, 10) : null;
}

export type TrackingStatus = CarrierTracking['status'];

/**
 * A carrier's tracking codes read as shipment statuses: the codes of each status (`none`: the label
 * exists and nothing moved yet); any other code is in transit. `key` puts a code in the form the
 * table is written in (USPS's categories are compared without case).
 */
export function statusReader(codes: Partial<Record<Exclude<TrackingStatus, null> | 'none', readonly string[]>>, key = (code: string) => code) {
  const byCode = new Map(Object.entries(codes).flatMap(([status, list]) => list.map((c) => [c, status === 'none' ? null : (status as TrackingStatus)] as const)));
  return (code: string): TrackingStatus => {
    const status = byCode.get(key(code));
    return status === undefined ? 'in_transit' : status;
  };
}
