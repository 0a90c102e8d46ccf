/**
 * FedEx REST APIs (developer.fedex.com): Ship API v1 (`POST /ship/v1/shipments`, `PUT
 * /ship/v1/shipments/cancel`), Rate API v1 (`POST /rate/v1/rates/quotes`), Track API v1 (`POST
 * /track/v1/trackingnumbers`), OAuth 2.0 client credentials (`POST /oauth/token`). Pure mappings
 * between Despacho's shipment and FedEx's JSON; the adapter (infra/carriers/fedex.ts) sends them.
 *
 * Units: the origin's (pounds and inches from the US, kilograms and centimetres elsewhere), weight
 * to 0.1 and whole dimensions, rounded up. The label is a PDF on 4x6 paper (`PAPER_4X6`); several
 * packages come back merged in one document (`mergeLabelDocOption: LABELS_ONLY`).
 */
import { packageIn, systemOfOrigin } from '../units';
import type { CarrierParty, CarrierRate, CarrierRateRequest, CarrierShipment, CarrierShipmentRequest, CarrierTracking } from '../carrier';
import { amountOf, CarrierAnswerUnreadable, cut, dayOf, isInternational, pdfFromBase64, phoneDigits, serviceCode, serviceOfCode, type ServiceTable, statusReader } from './common';
import services from './services.json';

/** The services callers name, with the carrier's code and name (services.json). */
export const fedexServices: ServiceTable = services.fedex;

/** FedEx sends a state or province code only for the US and Canada (2 letters). */
const stateCode = (p: { country: string; state: string }) => (['US', 'CA'].includes(p.country) && /^[A-Za-z]{2}$/.test(p.state.trim()) ? p.state.trim().toUpperCase() : undefined);

function fedexParty(p: CarrierParty) {
  return {
    contact: { personName: cut(p.name, 70), phoneNumber: phoneDigits(p.phone).replace('+', '').slice(-15), ...(p.email ? { emailAddress: cut(p.email, 80) } : {}) },
    address: {
      streetLines: [cut(p.address1, 35), ...(p.address2 ? [cut(p.address2, 35)] : [])],
      city: cut(p.city, 35),
      ...(stateCode(p) ? { stateOrProvinceCode: stateCode(p) } : {}),
      postalCode: cut(p.postal_code, 10),
      countryCode: p.country,
    },
  };
}

export function fedexShipRequest(req: CarrierShipmentRequest, accountNumber: string) {
  const system = systemOfOrigin(req.shipper.country);
  const pieces = req.packages.map((p) => packageIn(system, p));
  const international = isInternational(req);
  const commodities = req.customs.map((l) => {
    const w = packageIn(system, { weight: l.unitWeight * l.quantity, length: 1, width: 1, height: 1 });
    return {
      description: cut(l.description, 450),
      countryOfManufacture: l.originCountry,
      quantity: l.quantity,
      quantityUnits: 'PCS',
      unitPrice: { amount: l.unitValue, currency: req.currency },
      customsValue: { amount: Math.round(l.unitValue * l.quantity * 100) / 100, currency: req.currency },
      weight: { units: w.weightUnit, value: w.weight },
      ...(l.hsCode ? { harmonizedCode: l.hsCode } : {}),
    };
  });
  return {
    labelResponseOptions: 'LABEL',
    mergeLabelDocOption: 'LABELS_ONLY',
    accountNumber: { value: accountNumber },
    requestedShipment: {
      shipper: fedexParty(req.shipper),
      recipients: [fedexParty(req.recipient)],
      shipDatestamp: req.shipDate,
      serviceType: serviceCode('fedex', fedexServices, req.service),
      packagingType: 'YOUR_PACKAGING',
      pickupType: 'USE_SCHEDULED_PICKUP',
      blockInsightVisibility: false,
      shippingChargesPayment: { paymentType: 'SENDER', payor: { responsibleParty: { accountNumber: { value: accountNumber } } } },
      labelSpecification: { imageType: 'PDF', labelStockType: 'PAPER_4X6', labelFormatType: 'COMMON2D' },
      ...(international
        ? {
            customsClearanceDetail: {
              dutiesPayment: { paymentType: 'RECIPIENT' },
              isDocumentOnly: false,
              commercialInvoice: { shipmentPurpose: 'SOLD', customerReferences: [{ customerReferenceType: 'INVOICE_NUMBER', value: cut(req.orderNumber, 30) }] },
              commodities,
            },
          }
        : {}),
      totalPackageCount: pieces.length,
      requestedPackageLineItems: pieces.map((p, i) => ({
        sequenceNumber: i + 1,
        weight: { units: p.weightUnit, value: p.weight },
        dimensions: { length: p.length, width: p.width, height: p.height, units: p.dimensionUnit },
        customerReferences: [{ customerReferenceType: 'CUSTOMER_REFERENCE', value: cut(`${req.orderNumber} / ${req.shipmentId}`, 30) }],
      })),
    },
  };
}

type Raw = Record<string, any>;

export function fedexParseShipment(body: unknown, packages: number): CarrierShipment {
  const shipment: Raw | undefined = (body as Raw)?.output?.transactionShipments?.[0];
  if (!shipment) throw new CarrierAnswerUnreadable('fedex', 'the answer has no output.transactionShipments');
  const trackingNumber = shipment.masterTrackingNumber ?? shipment.pieceResponses?.[0]?.trackingNumber;
  if (typeof trackingNumber !== 'string' || !trackingNumber) throw new CarrierAnswerUnreadable('fedex', 'the answer has no tracking number');
  const merged = (shipment.shipmentDocuments ?? []).find((d: Raw) => d.contentType === 'MERGED_LABEL_DOCUMENTS');
  const first = shipment.pieceResponses?.[0]?.packageDocuments?.find((d: Raw) => d.contentType === 'LABEL');
  const labelDoc = packages > 1 ? (merged ?? first) : (first ?? merged);
  const rate = shipment.completedShipmentDetail?.shipmentRating?.shipmentRateDetails?.[0];
  const estimated = shipment.completedShipmentDetail?.operationalDetail?.deliveryDate ?? shipment.pieceResponses?.[0]?.deliveryDatestamp;
  return {
    trackingNumber,
    estimatedDelivery: dayOf(estimated),
    label: pdfFromBase64('fedex', labelDoc?.encodedLabel),
    cost: rate && rate.totalNetCharge !== undefined ? { amount: amountOf('fedex', rate.totalNetCharge), currency: String(rate.currency ?? 'USD') } : null,
    reference: null,
  };
}

export const fedexCancelRequest = (accountNumber: string, trackingNumber: string) => ({
  accountNumber: { value: accountNumber },
  emailShipment: false,
  deletionControl: 'DELETE_ALL_PACKAGES',
  trackingNumber,
});

export const fedexTrackRequest = (trackingNumber: string) => ({ includeDetailedScans: false, trackingInfo: [{ trackingNumberInfo: { trackingNumber } }] });

/** FedEx's latest status codes -> shipment statuses (null: nothing moved yet, e.g. OC label created). */
export const fedexStatus = statusReader({ delivered: ['DL'], out_for_delivery: ['OD'], exception: ['DE', 'SE', 'CA', 'DY', 'CD'], returned: ['RS'], none: ['OC'] });

export function fedexParseTracking(body: unknown): CarrierTracking {
  const result: Raw | undefined = (body as Raw)?.output?.completeTrackResults?.[0]?.trackResults?.[0];
  if (!result) throw new CarrierAnswerUnreadable('fedex', 'the answer has no output.completeTrackResults');
  if (result.error) throw new CarrierAnswerUnreadable('fedex', `${result.error.code}: ${result.error.message}`);
  const latest: Raw = result.latestStatusDetail ?? {};
  const when = (result.dateAndTimes ?? []).find((d: Raw) => d.type === 'ACTUAL_DELIVERY')?.dateTime ?? result.scanEvents?.[0]?.date ?? null;
  return { status: fedexStatus(String(latest.code ?? '')), occurredAt: typeof when === 'string' ? new Date(when).toISOString() : null, description: String(latest.description ?? latest.statusByLocale ?? '') };
}

export function fedexRateRequest(req: CarrierRateRequest, accountNumber: string) {
  const system = systemOfOrigin(req.origin.country);
  const address = (a: CarrierRateRequest['origin']) => ({ postalCode: cut(a.postal_code, 10), city: cut(a.city, 35), countryCode: a.country, ...(stateCode(a) ? { stateOrProvinceCode: stateCode(a) } : {}) });
  return {
    accountNumber: { value: accountNumber },
    rateRequestControlParameters: { returnTransitTimes: true },
    requestedShipment: {
      shipper: { address: address(req.origin) },
      recipient: { address: address(req.destination) },
      shipDateStamp: req.shipDate,
      pickupType: 'USE_SCHEDULED_PICKUP',
      rateRequestType: ['ACCOUNT'],
      ...(req.declaredValue && req.origin.country !== req.destination.country
        ? { customsClearanceDetail: { dutiesPayment: { paymentType: 'RECIPIENT' }, commodities: [{ description: 'Merchandise', quantity: 1, quantityUnits: 'PCS', customsValue: req.declaredValue }] } }
        : {}),
      requestedPackageLineItems: req.packages.map((p) => {
        const c = packageIn(system, p);
        return { weight: { units: c.weightUnit, value: c.weight }, dimensions: { length: c.length, width: c.width, height: c.height, units: c.dimensionUnit } };
      }),
    },
  };
}

export function fedexParseRates(body: unknown): CarrierRate[] {
  const details: Raw[] | undefined = (body as Raw)?.output?.rateReplyDetails;
  if (!Array.isArray(details)) throw new CarrierAnswerUnreadable('fedex', 'the answer has no output.rateReplyDetails');
  return details.map((d) => {
    const rated: Raw = d.ratedShipmentDetails?.[0] ?? {};
    const transit = d.commit?.transitDays?.minimumTransitTime ?? d.operationalDetail?.transitTime;
    const days = typeof transit === 'string' ? ({ ONE_DAY: 1, TWO_DAYS: 2, THREE_DAYS: 3, FOUR_DAYS: 4, FIVE_DAYS: 5, SIX_DAYS: 6, SEVEN_DAYS: 7, EIGHT_DAYS: 8, NINE_DAYS: 9, TEN_DAYS: 10 } as Record<string, number>)[transit] ?? null : null;
    return {
      service: serviceOfCode(fedexServices, String(d.serviceType)),
      serviceName: String(d.serviceName ?? d.serviceType),
      transitDays: days,
      deliveryDate: dayOf(d.commit?.dateDetail?.dayFormat ?? d.operationalDetail?.deliveryDate),
      cost: { amount: amountOf('fedex', rated.totalNetCharge), currency: String(rated.currency ?? rated.shipmentRateDetail?.currency ?? 'USD') },
    };
  });
}

/** FedEx error bodies: `{transactionId, errors: [{code, message}]}`. */
export function fedexMessage(body: unknown): string | undefined {
  const errors = (body as Raw)?.errors;
  if (!Array.isArray(errors) || !errors.length) return undefined;
  return errors.map((e: Raw) => `${e.code ?? ''}${e.code ? ': ' : ''}${e.message ?? ''}`).join('; ');
}
