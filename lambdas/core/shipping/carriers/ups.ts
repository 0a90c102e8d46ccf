/**
 * UPS REST APIs (developer.ups.com): Shipping API v2409 (`POST /api/shipments/v2409/ship`,
 * `DELETE /api/shipments/v2409/void/cancel/{ShipmentIdentificationNumber}`), Rating API v2409
 * (`POST /api/rating/v2409/Shop`), Tracking API v1 (`GET /api/track/v1/details/{inquiryNumber}`),
 * OAuth 2.0 client credentials (`POST /security/v1/oauth/token`, basic auth). Pure mappings.
 *
 * UPS's JSON carries numbers as strings ("5.0"). Units: the origin's (LBS and IN from the US, KGS
 * and CM elsewhere), rounded up. UPS prints labels as GIF images (the label image formats are
 * GIF, ZPL, EPL and SPL; no PDF): the adapter puts each on a 4x6 PDF page.
 */
import { packageIn, systemOfOrigin } from '../units';
import type { CarrierParty, CarrierRate, CarrierRateRequest, CarrierShipmentRequest, CarrierTracking } from '../carrier';
import { amountOf, CarrierAnswerUnreadable, cut, isInternational, phoneDigits, serviceCode, serviceOfCode, type ServiceTable, statusReader } from './common';
import services from './services.json';

/** The services callers name, with the carrier's code and name (services.json). */
export const upsServices: ServiceTable = services.ups;

const s = (n: number) => String(n);

function upsAddress(p: { address1?: string; address2?: string | null; city: string; state: string; postal_code: string; country: string }) {
  return {
    ...(p.address1 !== undefined ? { AddressLine: [cut(p.address1, 35), ...(p.address2 ? [cut(p.address2, 35)] : [])] } : {}),
    City: cut(p.city, 30),
    ...(['US', 'CA', 'IE'].includes(p.country) && /^[A-Za-z]{2}$/.test(p.state.trim()) ? { StateProvinceCode: p.state.trim().toUpperCase() } : {}),
    PostalCode: cut(p.postal_code, 9).replace(/\s/g, ''),
    CountryCode: p.country,
  };
}

const upsParty = (p: CarrierParty) => ({
  Name: cut(p.name, 35),
  AttentionName: cut(p.name, 35),
  Phone: { Number: phoneDigits(p.phone).replace('+', '').slice(-15) },
  ...(p.email ? { EMailAddress: cut(p.email, 50) } : {}),
  Address: upsAddress(p),
});

function upsPackage(system: 'metric' | 'imperial', p: { weight: number; length: number; width: number; height: number }) {
  const c = packageIn(system, p);
  return {
    Dimensions: { UnitOfMeasurement: { Code: c.dimensionUnit }, Length: s(c.length), Width: s(c.width), Height: s(c.height) },
    PackageWeight: { UnitOfMeasurement: { Code: c.weightUnit === 'LB' ? 'LBS' : 'KGS' }, Weight: c.weight.toFixed(1) },
  };
}

export function upsShipRequest(req: CarrierShipmentRequest, shipperNumber: string) {
  const system = systemOfOrigin(req.shipper.country);
  const invoiceDate = req.shipDate.replace(/-/g, '');
  return {
    ShipmentRequest: {
      Request: { RequestOption: 'nonvalidate', TransactionReference: { CustomerContext: cut(`${req.orderNumber} / ${req.shipmentId}`, 512) } },
      Shipment: {
        Description: cut(req.customs.map((l) => l.description).join(', ') || `Order ${req.orderNumber}`, 50),
        Shipper: { ...upsParty(req.shipper), ShipperNumber: shipperNumber },
        ShipTo: upsParty(req.recipient),
        ShipFrom: upsParty(req.shipper),
        PaymentInformation: { ShipmentCharge: [{ Type: '01', BillShipper: { AccountNumber: shipperNumber } }] },
        Service: { Code: serviceCode('ups', upsServices, req.service) },
        Package: req.packages.map((p) => ({ Packaging: { Code: '02' }, ...upsPackage(system, p) })),
        ...(isInternational(req)
          ? {
              ShipmentServiceOptions: {
                InternationalForms: {
                  FormType: '01',
                  InvoiceNumber: cut(req.orderNumber, 35),
                  InvoiceDate: invoiceDate,
                  ReasonForExport: 'SALE',
                  CurrencyCode: req.currency,
                  Contacts: { SoldTo: upsParty(req.recipient) },
                  Product: req.customs.map((l) => ({
                    Description: [cut(l.description, 35)],
                    Unit: { Number: s(l.quantity), Value: l.unitValue.toFixed(2), UnitOfMeasurement: { Code: 'PCS' } },
                    ...(l.hsCode ? { CommodityCode: l.hsCode.replace(/\D/g, '') } : {}),
                    OriginCountryCode: l.originCountry,
                  })),
                },
              },
            }
          : {}),
      },
      LabelSpecification: { LabelImageFormat: { Code: 'GIF' }, HTTPUserAgent: 'Mozilla/4.5', LabelStockSize: { Height: '6', Width: '4' } },
    },
  };
}

type Raw = Record<string, any>;

const list = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** The tracking number, the GIF labels (base64) one per package, the cost and the void reference. */
export function upsParseShipment(body: unknown) {
  const results: Raw | undefined = (body as Raw)?.ShipmentResponse?.ShipmentResults;
  if (!results) throw new CarrierAnswerUnreadable('ups', 'the answer has no ShipmentResponse.ShipmentResults');
  const packages = list<Raw>(results.PackageResults);
  const trackingNumber = packages[0]?.TrackingNumber;
  if (typeof trackingNumber !== 'string' || !trackingNumber) throw new CarrierAnswerUnreadable('ups', 'the answer has no tracking number');
  const gifs = packages.map((p) => {
    const image = p.ShippingLabel?.GraphicImage;
    if (typeof image !== 'string' || !image) throw new CarrierAnswerUnreadable('ups', 'a package has no ShippingLabel.GraphicImage');
    return Buffer.from(image, 'base64');
  });
  const charges = results.NegotiatedRateCharges?.TotalCharge ?? results.ShipmentCharges?.TotalCharges;
  return {
    trackingNumber,
    gifs,
    cost: charges ? { amount: amountOf('ups', charges.MonetaryValue), currency: String(charges.CurrencyCode) } : null,
    reference: typeof results.ShipmentIdentificationNumber === 'string' ? results.ShipmentIdentificationNumber : trackingNumber,
  };
}

export function upsVoided(body: unknown): boolean {
  return (body as Raw)?.VoidShipmentResponse?.SummaryResult?.Status?.Code === '1';
}

export function upsRateRequest(req: CarrierRateRequest, shipperNumber: string) {
  const system = systemOfOrigin(req.origin.country);
  return {
    RateRequest: {
      Request: { RequestOption: 'Shop', TransactionReference: { CustomerContext: 'Despacho quote' } },
      Shipment: {
        Shipper: { ShipperNumber: shipperNumber, Address: upsAddress(req.origin) },
        ShipTo: { Address: upsAddress(req.destination) },
        ShipFrom: { Address: upsAddress(req.origin) },
        PaymentDetails: { ShipmentCharge: [{ Type: '01', BillShipper: { AccountNumber: shipperNumber } }] },
        NumOfPieces: s(req.packages.length),
        Package: req.packages.map((p) => ({ PackagingType: { Code: '02' }, ...upsPackage(system, p) })),
        ...(req.declaredValue ? { InvoiceLineTotal: { CurrencyCode: req.declaredValue.currency, MonetaryValue: req.declaredValue.amount.toFixed(2) } } : {}),
      },
    },
  };
}

export function upsParseRates(body: unknown): CarrierRate[] {
  const rated = list<Raw>((body as Raw)?.RateResponse?.RatedShipment);
  if (!(body as Raw)?.RateResponse) throw new CarrierAnswerUnreadable('ups', 'the answer has no RateResponse');
  return rated.map((r) => {
    const code = String(r.Service?.Code);
    const days = Number(r.GuaranteedDelivery?.BusinessDaysInTransit);
    const total = r.NegotiatedRateCharges?.TotalCharge ?? r.TotalCharges;
    return {
      service: serviceOfCode(upsServices, code),
      serviceName: Object.values(upsServices).find((x) => x.code === code)?.name ?? `UPS service ${code}`,
      transitDays: Number.isInteger(days) && days > 0 ? days : null,
      deliveryDate: null,
      cost: { amount: amountOf('ups', total?.MonetaryValue), currency: String(total?.CurrencyCode ?? 'USD') },
    };
  });
}

/** UPS activity status types -> shipment statuses (M: manifest only, the label exists, nothing moved). */
export const upsStatus = statusReader({ delivered: ['D'], out_for_delivery: ['O'], exception: ['X'], returned: ['RS'], none: ['M', 'MV'] });

export function upsParseTracking(body: unknown): CarrierTracking {
  const pkg: Raw | undefined = (body as Raw)?.trackResponse?.shipment?.[0]?.package?.[0];
  if (!pkg) throw new CarrierAnswerUnreadable('ups', 'the answer has no trackResponse.shipment[0].package');
  const latest: Raw = pkg.activity?.[0] ?? {};
  const d = String(latest.date ?? '');
  const t = String(latest.time ?? '').padEnd(6, '0');
  const occurredAt = /^\d{8}$/.test(d) ? `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)}T${t.slice(0, 2)}:${t.slice(2, 4)}:${t.slice(4, 6)}.000Z` : null;
  return { status: upsStatus(String(latest.status?.type ?? 'M')), occurredAt, description: String(latest.status?.description ?? pkg.currentStatus?.description ?? '') };
}

/** UPS error bodies: `{response: {errors: [{code, message}]}}`. */
export function upsMessage(body: unknown): string | undefined {
  const errors = (body as Raw)?.response?.errors;
  if (!Array.isArray(errors) || !errors.length) return undefined;
  return errors.map((e: Raw) => `${e.code}: ${e.message}`).join('; ');
}
