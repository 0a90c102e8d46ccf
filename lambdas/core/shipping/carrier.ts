import { argentineDay } from '../customs/regime-rules';

/**
 * What the ship endpoint (spec 4.1), the quotes, cancel and the tracking poll ask of a carrier.
 * Each carrier is an adapter in lambdas/infra/carriers/ that implements this port with the
 * carrier's API and the account's credentials (found by `accountId`), registered in `carriers`
 * (lambdas/infra/carriers.ts). The built-in `despacho` carrier returns no label: the service draws
 * its own with lambdas/infra/label-pdf.ts; an external carrier's label is the carrier's.
 */
export interface CarrierPort {
  /** The lower-case name callers send as `carrier` (spec 2.2). */
  name: string;
  /** The service levels the carrier offers, as callers send them as `service`. */
  services: readonly string[];
  createShipment(input: CarrierShipmentRequest): Promise<CarrierShipment>;
  /** Voids (cancels) an unused label. Absent: the carrier has nothing to void. */
  voidShipment?(input: CarrierShipmentRef): Promise<void>;
  /** The shipment's latest tracking status. */
  track?(input: CarrierShipmentRef): Promise<CarrierTracking>;
  /** The carrier's rates for a route and packages. */
  rate?(input: CarrierRateRequest): Promise<CarrierRate[]>;
}

export interface TrackingRequest {
  shipmentId: number;
  service: string;
  accountId: number;
}

export interface TrackingIssued {
  trackingNumber: string;
  /** YYYY-MM-DD, Argentine calendar. */
  estimatedDelivery: string;
}

/** A shipper or recipient as the carriers want them. */
export interface CarrierParty {
  name: string;
  phone: string | null;
  email: string | null;
  address1: string;
  address2: string | null;
  city: string;
  state: string;
  postal_code: string;
  /** ISO 3166-1 alpha-2, upper case. */
  country: string;
}

/** One line of the customs declaration, from an order item. */
export interface CustomsLine {
  description: string;
  sku: string;
  quantity: number;
  /** Per unit, in `currency`. */
  unitValue: number;
  /** Per unit, kg. */
  unitWeight: number;
  /** null when unknown: carriers then take the description alone. */
  hsCode: string | null;
  /** ISO alpha-2 country of manufacture. */
  originCountry: string;
}

export interface CarrierShipmentRequest {
  shipmentId: number;
  accountId: number;
  service: string;
  orderNumber: string;
  /** YYYY-MM-DD. */
  shipDate: string;
  shipper: CarrierParty;
  recipient: CarrierParty;
  /** kg and cm. */
  packages: { weight: number; length: number; width: number; height: number }[];
  currency: string;
  /** The declaration of an international shipment (every line shipped); empty for a domestic one. */
  customs: CustomsLine[];
}

export interface Money {
  amount: number;
  currency: string;
}

export interface CarrierShipment {
  trackingNumber: string;
  /** YYYY-MM-DD, or null when the carrier gives none. */
  estimatedDelivery: string | null;
  /** The carrier's 4x6 PDF label; null for the built-in carrier, whose label the service draws. */
  label: Buffer | null;
  cost: Money | null;
  /** What the carrier needs to void or track it, when not the tracking number alone. */
  reference: string | null;
}

export interface CarrierShipmentRef {
  accountId: number;
  trackingNumber: string;
  reference: string | null;
  /** Destination country: USPS voids domestic and international labels at different addresses. */
  destinationCountry: string;
}

/** Shipment statuses a carrier reports (core/orders/model ShipmentStatus), or null when nothing moved yet. */
export interface CarrierTracking {
  status: 'in_transit' | 'out_for_delivery' | 'delivered' | 'exception' | 'returned' | null;
  /** ISO 8601 of the latest event, when given. */
  occurredAt: string | null;
  description: string;
}

export interface CarrierRateRequest {
  accountId: number;
  shipDate: string;
  origin: { country: string; postal_code: string; city: string; state: string };
  destination: { country: string; postal_code: string; city: string; state: string };
  /** kg and cm. */
  packages: { weight: number; length: number; width: number; height: number }[];
  declaredValue: Money | null;
}

export interface CarrierRate {
  service: string;
  serviceName: string;
  transitDays: number | null;
  /** YYYY-MM-DD or null. */
  deliveryDate: string | null;
  cost: Money;
}

/**
 * The built-in carrier's services and their transit times in business days (Monday to Friday,
 * counted from the day after the shipment is created, on the Argentine calendar). Public holidays
 * are not skipped: the date is an estimate.
 */
export const despachoTransitDays = { express: 2, standard: 5, economy: 8 } as const satisfies Record<string, number>;

export type DespachoService = keyof typeof despachoTransitDays;

const PREFIX = 'DSP';
const SERIAL_DIGITS = 10;
const MAX_SHIPMENT_ID = 10 ** SERIAL_DIGITS - 1;
const TRACKING = /^DSP(\d{10})(\d)$/;
const DAY_MS = 86_400_000;

/**
 * The Luhn check digit (ISO/IEC 7812-1, mod 10) of a string of digits: from the right, every
 * second digit starting with the rightmost is doubled (9 subtracted above 9), and the digit is
 * what brings the sum to a multiple of 10. It catches every single-digit error and every swap of
 * adjacent digits except 09/90. `7992739871` -> 3.
 */
export function luhnCheckDigit(digits: string): number {
  if (!/^\d+$/.test(digits)) throw new RangeError(`not a string of digits: ${digits}`);
  let sum = 0;
  for (let i = digits.length - 1, double = true; i >= 0; i--, double = !double) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return (10 - (sum % 10)) % 10;
}

/**
 * The built-in carrier's tracking number of a shipment: `DSP`, the shipment id zero-padded to
 * 10 digits, and the Luhn check digit of those 10 digits (14 characters, e.g. shipment 42 ->
 * `DSP00000000422`). Deterministic: shipment ids are unique, so are the numbers, and issuing
 * again (a retried request) gives the same number. Throws a RangeError outside 1..9,999,999,999.
 */
export function trackingNumberFor(shipmentId: number): string {
  if (!Number.isSafeInteger(shipmentId) || shipmentId < 1 || shipmentId > MAX_SHIPMENT_ID) {
    throw new RangeError(`shipment id out of range for a tracking number: ${shipmentId}`);
  }
  const serial = String(shipmentId).padStart(SERIAL_DIGITS, '0');
  return `${PREFIX}${serial}${luhnCheckDigit(serial)}`;
}

/** Whether `s` is a built-in carrier tracking number with a right check digit (exact form: upper case, no spaces). */
export function isValidTrackingNumber(s: string): boolean {
  const m = TRACKING.exec(s);
  return m !== null && Number(m[1]) > 0 && luhnCheckDigit(m[1]) === Number(m[2]);
}

/**
 * The date `businessDays` business days (Monday to Friday) after the Argentine calendar day of
 * `shippedAt`, as YYYY-MM-DD. The shipping day itself never counts, even on a weekday: a Friday
 * shipment with 2 days arrives on Tuesday, a Saturday one too.
 */
export function deliveryEstimate(shippedAt: Date, businessDays: number): string {
  if (!Number.isInteger(businessDays) || businessDays < 0) throw new RangeError(`business days must be a whole number >= 0: ${businessDays}`);
  let t = Date.parse(`${argentineDay(shippedAt)}T00:00:00Z`);
  for (let left = businessDays; left > 0; ) {
    t += DAY_MS;
    const weekday = new Date(t).getUTCDay();
    if (weekday !== 0 && weekday !== 6) left--;
  }
  return new Date(t).toISOString().slice(0, 10);
}
