/**
 * DHL Express MyDHL API 2.x (developer.dhl.com, v2.11): `POST /shipments`, `POST /rates`,
 * `GET /shipments/{shipmentTrackingNumber}/tracking`, HTTP basic auth. Pure mappings.
 *
 * Units: always metric (`unitOfMeasurement: metric`: kg to 0.1 and whole cm, rounded up). The label
 * is one PDF for every piece (`encodingFormat: pdf`, template ECOM26_84_001, 4x6 in). MyDHL has
 * no void: DHL Express bills a waybill only once it is picked up, so an unused label is left to
 * expire (the adapter has no `voidShipment`).
 */
import { packageIn } from '../units';
import type { CarrierParty, CarrierRate, CarrierRateRequest, CarrierShipment, CarrierShipmentRequest, CarrierTracking } from '../carrier';
import { amountOf, CarrierAnswerUnreadable, cut, dayOf, isInternational, pdfFromBase64, phoneDigits, serviceCode, serviceOfCode, type ServiceTable, statusReader } from './common';
import services from './services.json';

/** The services callers name, with the carrier's code and name (services.json). */
export const dhlServices: ServiceTable = services.dhl;

/** MyDHL's planned time: `2026-11-25T10:00:00 GMT+00:00`. */
export const dhlPlannedTime = (day: string) => `${day}T10:00:00 GMT+00:00`;

const dhlParty = (p: CarrierParty) => ({
  postalAddress: {
    postalCode: cut(p.postal_code, 12),
    cityName: cut(p.city, 45),
    countryCode: p.country,
    ...(p.state ? { provinceName: cut(p.state, 35) } : {}),
    addressLine1: cut(p.address1, 45),
    ...(p.address2 ? { addressLine2: cut(p.address2, 45) } : {}),
  },
  contactInformation: { phone: cut(phoneDigits(p.phone), 70), companyName: cut(p.name, 100), fullName: cut(p.name, 255), ...(p.email ? { email: cut(p.email, 70) } : {}) },
});

export function dhlShipRequest(req: CarrierShipmentRequest, accountNumber: string) {
  const international = isInternational(req);
  const declared = Math.round(req.customs.reduce((a, l) => a + l.unitValue * l.quantity * 100, 0)) / 100;
  return {
    plannedShippingDateAndTime: dhlPlannedTime(req.shipDate),
    pickup: { isRequested: false },
    productCode: serviceCode('dhl', dhlServices, req.service),
    accounts: [{ typeCode: 'shipper', number: accountNumber }],
    outputImageProperties: { encodingFormat: 'pdf', imageOptions: [{ typeCode: 'label', templateName: 'ECOM26_84_001' }] },
    customerReferences: [{ value: cut(`${req.orderNumber} / ${req.shipmentId}`, 35), typeCode: 'CU' }],
    customerDetails: { shipperDetails: dhlParty(req.shipper), receiverDetails: dhlParty(req.recipient) },
    content: {
      packages: req.packages.map((p) => {
        const c = packageIn('metric', p);
        return { weight: c.weight, dimensions: { length: c.length, width: c.width, height: c.height } };
      }),
      isCustomsDeclarable: international,
      ...(international
        ? {
            declaredValue: declared,
            declaredValueCurrency: req.currency,
            exportDeclaration: {
              lineItems: req.customs.map((l, i) => ({
                number: i + 1,
                description: cut(l.description, 512),
                price: l.unitValue,
                quantity: { value: l.quantity, unitOfMeasurement: 'PCS' },
                ...(l.hsCode ? { commodityCodes: [{ typeCode: 'outbound', value: l.hsCode }] } : {}),
                exportReasonType: 'permanent',
                manufacturerCountry: l.originCountry,
                weight: { netValue: Math.max(0.001, Math.round(l.unitWeight * l.quantity * 1000) / 1000), grossValue: Math.max(0.001, Math.round(l.unitWeight * l.quantity * 1000) / 1000) },
              })),
              invoice: { number: cut(req.orderNumber, 35), date: req.shipDate },
            },
          }
        : {}),
      description: cut(req.customs.map((l) => l.description).join(', ') || `Order ${req.orderNumber}`, 70),
      incoterm: 'DAP',
      unitOfMeasurement: 'metric',
    },
    estimatedDeliveryDate: { isRequested: true, typeCode: 'QDDC' },
  };
}

type Raw = Record<string, any>;

export function dhlParseShipment(body: unknown): CarrierShipment {
  const b = body as Raw;
  if (typeof b?.shipmentTrackingNumber !== 'string' || !b.shipmentTrackingNumber) throw new CarrierAnswerUnreadable('dhl', 'the answer has no shipmentTrackingNumber');
  const label = (b.documents ?? []).find((d: Raw) => d.typeCode === 'label');
  const charge = (b.shipmentCharges ?? []).find((c: Raw) => c.currencyType === 'BILLC') ?? b.shipmentCharges?.[0];
  return {
    trackingNumber: b.shipmentTrackingNumber,
    estimatedDelivery: dayOf(b.estimatedDeliveryDate?.estimatedDeliveryDate),
    label: pdfFromBase64('dhl', label?.content),
    cost: charge ? { amount: amountOf('dhl', charge.price), currency: String(charge.priceCurrency) } : null,
    reference: null,
  };
}

export function dhlRateRequest(req: CarrierRateRequest, accountNumber: string) {
  const place = (a: CarrierRateRequest['origin']) => ({ postalCode: cut(a.postal_code, 12), cityName: cut(a.city, 45), countryCode: a.country });
  const international = req.origin.country !== req.destination.country;
  return {
    customerDetails: { shipperDetails: place(req.origin), receiverDetails: place(req.destination) },
    accounts: [{ typeCode: 'shipper', number: accountNumber }],
    plannedShippingDateAndTime: dhlPlannedTime(req.shipDate),
    unitOfMeasurement: 'metric',
    isCustomsDeclarable: international,
    ...(req.declaredValue && international ? { monetaryAmount: [{ typeCode: 'declaredValue', value: req.declaredValue.amount, currency: req.declaredValue.currency }] } : {}),
    packages: req.packages.map((p) => {
      const c = packageIn('metric', p);
      return { weight: c.weight, dimensions: { length: c.length, width: c.width, height: c.height } };
    }),
  };
}

export function dhlParseRates(body: unknown): CarrierRate[] {
  const products = (body as Raw)?.products;
  if (!Array.isArray(products)) throw new CarrierAnswerUnreadable('dhl', 'the answer has no products');
  return products.map((p: Raw) => {
    const price = (p.totalPrice ?? []).find((t: Raw) => t.currencyType === 'BILLC') ?? p.totalPrice?.[0];
    const days = Number(p.deliveryCapabilities?.totalTransitDays);
    return {
      service: serviceOfCode(dhlServices, String(p.productCode)),
      serviceName: String(p.productName ?? p.productCode),
      transitDays: Number.isInteger(days) && days > 0 ? days : null,
      deliveryDate: dayOf(p.deliveryCapabilities?.estimatedDeliveryDateAndTime),
      cost: { amount: amountOf('dhl', price?.price), currency: String(price?.priceCurrency ?? 'USD') },
    };
  });
}

/** MyDHL event type codes -> shipment statuses (none yet: the label exists, nothing moved). */
export const dhlStatus = statusReader({ delivered: ['OK'], out_for_delivery: ['WC'], returned: ['RT', 'RD'], exception: ['OH', 'HP', 'CA', 'BA', 'NH', 'MS', 'CM'] });

export function dhlParseTracking(body: unknown): CarrierTracking {
  const shipment: Raw | undefined = (body as Raw)?.shipments?.[0];
  if (!shipment) throw new CarrierAnswerUnreadable('dhl', 'the answer has no shipments');
  const events: Raw[] = shipment.events ?? [];
  const latest = events[events.length - 1];
  if (!latest) return { status: null, occurredAt: null, description: 'No scan yet.' };
  const at = typeof latest.date === 'string' ? new Date(`${latest.date}T${latest.time ?? '00:00:00'}${latest.GMTOffset ?? 'Z'}`) : null;
  return { status: dhlStatus(String(latest.typeCode)), occurredAt: at && !Number.isNaN(at.getTime()) ? at.toISOString() : null, description: String(latest.description ?? '') };
}

/** MyDHL error bodies (RFC 7807-like): `{instance, detail, title, message, status, additionalDetails}`. */
export function dhlMessage(body: unknown): string | undefined {
  const b = body as Raw;
  if (!b || typeof b !== 'object' || (b.detail === undefined && b.title === undefined)) return undefined;
  const more = Array.isArray(b.additionalDetails) ? ` (${b.additionalDetails.join('; ')})` : '';
  return `${b.title ?? 'Error'}: ${b.detail ?? b.message ?? ''}${more}`;
}
