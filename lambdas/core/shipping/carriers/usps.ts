/**
 * USPS APIs 3.0 (developers.usps.com): Domestic Labels 3.0 (`POST /labels/v3/label`, `DELETE
 * /labels/v3/label/{trackingNumber}`), International Labels 3.0 (`POST
 * /international-labels/v3/international-label`, `DELETE .../{trackingNumber}`), Domestic and
 * International Prices 3.0 (`POST /prices/v3/base-rates/search`, `POST
 * /international-prices/v3/base-rates/search`), Tracking 3.0 (`GET /tracking/v3/tracking/{n}`),
 * Payments 3.0 (`POST /payments/v3/payment-authorization`: the token a label is paid with), OAuth
 * 2.0 client credentials (`POST /oauth2/v3/token`). Pure mappings.
 *
 * Units: always pounds and inches (`weightUOM: lb`, `dimensionsUOM: in`), rounded up. Labels are a
 * PDF on 4x6 (`imageType: PDF`, `labelType: 4X6LABEL`), asked as JSON (Accept
 * `application/vnd.usps.labels+json`) rather than multipart. One label carries one package.
 */
import { ValidationFailed } from '#core/errors';
import { packageIn } from '../units';
import type { CarrierParty, CarrierRate, CarrierRateRequest, CarrierShipment, CarrierShipmentRequest, CarrierTracking } from '../carrier';
import { amountOf, CarrierAnswerUnreadable, cut, isInternational, pdfFromBase64, phoneDigits, serviceCode, type ServiceTable, statusReader } from './common';
import services from './services.json';

/** The services callers name, with the carrier's code and name (services.json). */
export const uspsServices: ServiceTable = services.usps;

/** The checks USPS makes before a label: it ships from the US, one package, a service for the route. */
export function uspsCheck(req: CarrierShipmentRequest): void {
  const problems: Record<string, string[]> = {};
  if (req.shipper.country !== 'US') problems.warehouse_id = [`USPS ships from the United States; the warehouse is in ${req.shipper.country}.`];
  if (req.packages.length !== 1) problems.packages = ['A USPS label carries one package; ship the packages one at a time.'];
  const service = Object.hasOwn(uspsServices, req.service) ? uspsServices[req.service] : undefined;
  if (service && service.international !== isInternational(req)) {
    const fit = Object.entries(uspsServices).filter(([, s]) => s.international === isInternational(req)).map(([k]) => k);
    problems.service = [`${req.service} is a ${service.international ? 'international' : 'domestic'} USPS service; to ${req.recipient.country} use ${fit.join(', ')}.`];
  }
  if (Object.keys(problems).length) throw new ValidationFailed(problems);
}

function names(full: string) {
  const parts = full.trim().split(/\s+/);
  return { firstName: cut(parts.slice(0, -1).join(' ') || parts[0], 50), lastName: cut(parts.length > 1 ? parts[parts.length - 1] : '', 50) };
}

const domesticAddress = (p: CarrierParty) => ({
  ...names(p.name),
  streetAddress: cut(p.address1, 50),
  ...(p.address2 ? { secondaryAddress: cut(p.address2, 50) } : {}),
  city: cut(p.city, 28),
  state: cut(p.state, 2).toUpperCase(),
  ZIPCode: cut(p.postal_code, 5),
  phone: phoneDigits(p.phone).replace('+', '').slice(-10),
  ...(p.email ? { email: cut(p.email, 80) } : {}),
});

const foreignAddress = (p: CarrierParty) => ({
  ...names(p.name),
  streetAddress: cut(p.address1, 50),
  ...(p.address2 ? { secondaryAddress: cut(p.address2, 50) } : {}),
  city: cut(p.city, 50),
  province: cut(p.state, 50),
  postalCode: cut(p.postal_code, 20),
  countryISOAlpha2Code: p.country,
  phone: phoneDigits(p.phone).slice(0, 20),
  ...(p.email ? { email: cut(p.email, 80) } : {}),
});

export function uspsLabelRequest(req: CarrierShipmentRequest): { path: string; body: unknown; international: boolean } {
  const international = isInternational(req);
  const c = packageIn('imperial', req.packages[0]);
  const packageDescription = {
    mailClass: serviceCode('usps', uspsServices, req.service),
    rateIndicator: 'SP',
    weightUOM: 'lb',
    weight: c.weight,
    dimensionsUOM: 'in',
    length: c.length,
    width: c.width,
    height: c.height,
    processingCategory: international ? 'NONSTANDARD' : 'MACHINABLE',
    mailingDate: req.shipDate,
    destinationEntryFacilityType: 'NONE',
    customerReference: [{ referenceNumber: cut(`${req.orderNumber} / ${req.shipmentId}`, 30), printReferenceNumber: true }],
  };
  const imageInfo = { imageType: 'PDF', labelType: '4X6LABEL', receiptOption: 'NONE' };
  if (!international) {
    return { path: '/labels/v3/label', international, body: { imageInfo, toAddress: domesticAddress(req.recipient), fromAddress: domesticAddress(req.shipper), packageDescription } };
  }
  return {
    path: '/international-labels/v3/international-label',
    international,
    body: {
      imageInfo,
      toAddress: foreignAddress(req.recipient),
      fromAddress: domesticAddress(req.shipper),
      packageDescription,
      customsForm: {
        customsContentType: 'MERCHANDISE',
        AESITN: 'NO EEI 30.37(a)',
        invoiceNumber: cut(req.orderNumber, 15),
        contents: req.customs.map((l) => ({
          itemDescription: cut(l.description, 30),
          itemQuantity: l.quantity,
          itemValue: l.unitValue,
          itemTotalValue: Math.round(l.unitValue * l.quantity * 100) / 100,
          weightUOM: 'lb',
          itemWeight: packageIn('imperial', { weight: l.unitWeight, length: 1, width: 1, height: 1 }).weight,
          ...(l.hsCode ? { HSTariffNumber: l.hsCode.replace(/\D/g, '').slice(0, 10) } : {}),
          countryofOrigin: l.originCountry,
        })),
      },
    },
  };
}

type Raw = Record<string, any>;

export function uspsParseLabel(body: unknown): CarrierShipment {
  const b = body as Raw;
  const meta: Raw = b?.labelMetadata ?? {};
  const trackingNumber = meta.internationalTrackingNumber ?? meta.trackingNumber;
  if (typeof trackingNumber !== 'string' || !trackingNumber) throw new CarrierAnswerUnreadable('usps', 'the answer has no labelMetadata tracking number');
  return {
    trackingNumber,
    estimatedDelivery: null,
    label: pdfFromBase64('usps', b.labelImage),
    cost: meta.postage !== undefined ? { amount: amountOf('usps', meta.postage), currency: 'USD' } : null,
    reference: null,
  };
}

export const uspsPaymentAuthorization = (account: { crid: string; mailerId: string; accountNumber: string }) => ({
  roles: [
    { roleName: 'PAYER', CRID: account.crid, MID: account.mailerId, manifestMID: account.mailerId, accountType: 'EPS', accountNumber: account.accountNumber },
    { roleName: 'LABEL_OWNER', CRID: account.crid, MID: account.mailerId, manifestMID: account.mailerId },
  ],
});

/** One base-rates search per service of the route (the search prices one mail class). */
export function uspsRateRequests(req: CarrierRateRequest, accountNumber: string): { service: string; path: string; body: unknown }[] {
  const international = req.origin.country !== req.destination.country;
  const heaviest = req.packages.reduce((a, p) => (p.weight > a.weight ? p : a), req.packages[0]);
  const c = packageIn('imperial', heaviest);
  return Object.entries(uspsServices)
    .filter(([, s]) => s.international === international)
    .map(([service, s]) => ({
      service,
      path: international ? '/international-prices/v3/base-rates/search' : '/prices/v3/base-rates/search',
      body: {
        originZIPCode: cut(req.origin.postal_code, 5),
        ...(international ? { foreignPostalCode: cut(req.destination.postal_code, 20), destinationCountryCode: req.destination.country } : { destinationZIPCode: cut(req.destination.postal_code, 5) }),
        weight: c.weight,
        length: c.length,
        width: c.width,
        height: c.height,
        mailClass: s.code,
        processingCategory: international ? 'NONSTANDARD' : 'MACHINABLE',
        rateIndicator: 'SP',
        destinationEntryFacilityType: 'NONE',
        priceType: 'COMMERCIAL',
        mailingDate: req.shipDate,
        accountType: 'EPS',
        accountNumber,
      },
    }));
}

export function uspsParseRate(service: string, body: unknown, packages: number): CarrierRate {
  const total = (body as Raw)?.totalBasePrice;
  if (total === undefined) throw new CarrierAnswerUnreadable('usps', 'the answer has no totalBasePrice');
  return { service, serviceName: uspsServices[service].name, transitDays: null, deliveryDate: null, cost: { amount: Math.round(amountOf('usps', total) * packages * 100) / 100, currency: 'USD' } };
}

/** USPS tracking status categories -> shipment statuses. */
export const uspsStatus = statusReader(
  { delivered: ['delivered'], out_for_delivery: ['out for delivery'], exception: ['alert'], returned: ['return to sender'], none: ['pre-shipment', 'pre-transit'] },
  (category) => category.toLowerCase(),
);

export function uspsParseTracking(body: unknown): CarrierTracking {
  const b = body as Raw;
  if (typeof b?.statusCategory !== 'string') throw new CarrierAnswerUnreadable('usps', 'the answer has no statusCategory');
  const when = b.trackingEvents?.[0]?.eventTimestamp;
  const at = typeof when === 'string' ? new Date(when) : null;
  return { status: uspsStatus(b.statusCategory), occurredAt: at && !Number.isNaN(at.getTime()) ? at.toISOString() : null, description: String(b.statusSummary ?? b.status ?? '') };
}

/** USPS error bodies: `{apiVersion, error: {code, message, errors: [{status, code, title, detail}]}}`, or OAuth's. */
export function uspsMessage(body: unknown): string | undefined {
  const e = (body as Raw)?.error;
  // The OAuth endpoints answer RFC 6749 errors: `{error: "invalid_client", error_description}`.
  if (typeof e === 'string') return `${e}: ${(body as Raw).error_description ?? ''}`;
  if (!e || typeof e !== 'object') return undefined;
  const details = Array.isArray(e.errors) ? e.errors.map((x: Raw) => x.detail ?? x.title).filter(Boolean) : [];
  return [e.message, ...details].filter(Boolean).join(': ');
}
