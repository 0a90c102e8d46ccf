import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import { randomBytes, randomInt } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { LabelAddress } from '#infra/label-pdf';
import { kgPerLb, cmPerIn } from '#core/shipping/units';
import { now } from '#infra/clock';
import { encodeGif } from './gif';

/**
 * Local stand-ins for the four carriers' public APIs (FedEx, UPS, DHL Express MyDHL, USPS), on one
 * real node:http server (port 0) under `/fedex`, `/ups`, `/dhl` and `/usps`. The twin points every
 * adapter here (`CARRIER_API_URL`); the tests use them to see what the adapters send.
 *
 * Each fake accepts any non-empty credentials (unless told to refuse a client id), issues and then
 * checks its bearer tokens, checks the fields the real API requires, answers in the real shapes
 * (error bodies included), returns a real label with a Code 128 barcode of the tracking number (a
 * PDF; a GIF for UPS, as UPS does) and moves tracking on a clock: in transit when the label is
 * made, out for delivery after `stepMs`, delivered after twice that. Switches make it misbehave:
 * a 429 (with Retry-After) or a 5xx on the n-th request, an answer held back (timeouts).
 *
 * A recipient postal code of `00000` is refused by every carrier with its own address error.
 */
type Raw = Record<string, any>;
export type FakeCarrierName = 'fedex' | 'ups' | 'dhl' | 'usps';

export interface CarrierLoggedRequest {
  n: number;
  carrier: FakeCarrierName;
  method: string;
  /** Without the `/<carrier>` prefix. */
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
  status: number;
}

export interface FakeShipment {
  carrier: FakeCarrierName;
  trackingNumber: string;
  /** UPS's shipment identification number. */
  reference: string;
  service: string;
  createdAt: number;
  voided: boolean;
  international: boolean;
  label: Buffer;
}

export interface FakeCarriers {
  baseUrl: string;
  requests: CarrierLoggedRequest[];
  shipments: Map<string, FakeShipment>;
  /** The carrier's n-th request (1-based, counting only `path` when given) answers 429, with Retry-After unless null. */
  rateLimitOn(carrier: FakeCarrierName, nth: number, retryAfterSeconds: number | null, path?: string): void;
  /** The carrier's n-th request answers `status` (500) once. */
  failOn(carrier: FakeCarrierName, nth: number, status?: number, path?: string): void;
  /** The carrier's n-th request is answered only after `ms` (a timeout for the client). */
  stallOn(carrier: FakeCarrierName, nth: number, ms: number, path?: string): void;
  /** Credentials with this client id (API username for DHL) are refused. */
  refuse(carrier: FakeCarrierName, clientId: string): void;
  close(): Promise<void>;
}

export interface FakeCarriersOptions {
  /** Time from one tracking status to the next. */
  stepMs?: number;
}

interface Fault {
  carrier: FakeCarrierName;
  nth: number;
  path?: string;
  kind: 'status' | 'stall';
  status: number;
  headers: Record<string, string>;
  ms: number;
}

interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

interface Req {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: any;
  text: string;
}

interface State {
  tokens: Set<string>;
  refused: Map<FakeCarrierName, Set<string>>;
  shipments: Map<string, FakeShipment>;
  stepMs: number;
}

const json = (status: number, body: unknown, headers?: Record<string, string>): Answer => ({ status, body, headers });
const digits = (n: number) => Array.from({ length: n }, () => randomInt(10)).join('');
const isText = (v: unknown, max = 1000) => typeof v === 'string' && v.trim().length > 0 && v.length <= max;
const isNumber = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v > 0;
const isNumeric = (v: unknown) => typeof v === 'string' && /^\d+(\.\d+)?$/.test(v) && Number(v) > 0;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const businessDaysAfter = (ms: number, n: number) => {
  let t = ms;
  for (let left = n; left > 0; ) {
    t += 86_400_000;
    const wd = new Date(t).getUTCDay();
    if (wd !== 0 && wd !== 6) left--;
  }
  return day(t);
};

/** The label the fake prints: Despacho's own 4x6 layout with the carrier's name and tracking number. */
async function pdfLabel(carrier: string, service: string, trackingNumber: string, reference: string, sender: LabelAddress, recipient: LabelAddress, packages: { weight: number; length: number; width: number; height: number }[]) {
  // Loaded on the first label: the barcode library is large, and `npm start` should not wait for it.
  const { renderLabel } = await import('#infra/label-pdf');
  return renderLabel({ trackingNumber, carrier, service, orderNumber: reference || '-', shipmentId: 1, createdAt: new Date(now().getTime()).toISOString(), sender, recipient, packages });
}

/** UPS's label: a 6x4 GIF at 200 dpi, the label turned a quarter (UPS's own GIFs print rotated). */
async function upsGif(trackingNumber: string): Promise<Buffer> {
  const [{ code128 }, { bwipPngToGray }] = await Promise.all([import('bwip-js/node'), import('#infra/barcode')]);
  const [pw, ph] = [800, 1200];
  const probe = bwipPngToGray(await code128({ bcid: 'code128', text: trackingNumber, scale: 1, height: 25, paddingwidth: 10 }));
  const scale = Math.max(1, Math.min(4, Math.floor((pw - 20) / probe.width)));
  const code = bwipPngToGray(await code128({ bcid: 'code128', text: trackingNumber, scale, height: 25, includetext: true, paddingwidth: 10, backgroundcolor: 'FFFFFF' }));
  const portrait = Buffer.alloc(pw * ph, 0);
  const ox = Math.max(0, Math.floor((pw - code.width) / 2));
  const oy = 700;
  for (let y = 0; y < code.height && oy + y < ph; y++) for (let x = 0; x < code.width && ox + x < pw; x++) portrait[(oy + y) * pw + ox + x] = code.pixels[y * code.width + x] < 128 ? 1 : 0;
  for (let y = 40; y < 60; y++) for (let x = 40; x < pw - 40; x++) portrait[y * pw + x] = 1;
  // Turned a quarter clockwise: landscape 1200 x 800.
  const [lw, lh] = [ph, pw];
  const landscape = Buffer.alloc(lw * lh);
  for (let y = 0; y < ph; y++) for (let x = 0; x < pw; x++) landscape[x * lw + (lw - 1 - y)] = portrait[y * pw + x];
  return encodeGif(lw, lh, Buffer.from([255, 255, 255, 0, 0, 0]), landscape);
}

function trackingStatus(s: State, sh: FakeShipment): 'in_transit' | 'out_for_delivery' | 'delivered' {
  const elapsed = now().getTime() - sh.createdAt;
  if (elapsed >= 2 * s.stepMs) return 'delivered';
  if (elapsed >= s.stepMs) return 'out_for_delivery';
  return 'in_transit';
}

const kgOf = (value: number, unit: string) => (/^LB/i.test(unit) ? value * kgPerLb : value);
const cmOf = (value: number, unit: string) => (/^IN/i.test(unit) ? value * cmPerIn : value);
const price = (base: number, perKg: number, kg: number) => Math.round((base + perKg * kg) * 100) / 100;

// ---------------------------------------------------------------------------------------------
// FedEx

const fedexError = (status: number, code: string, message: string): Answer => json(status, { transactionId: randomBytes(8).toString('hex'), errors: [{ code, message }] });
const fedexServiceTypes = ['FEDEX_INTERNATIONAL_PRIORITY', 'INTERNATIONAL_ECONOMY', 'FEDEX_INTERNATIONAL_CONNECT_PLUS', 'PRIORITY_OVERNIGHT', 'STANDARD_OVERNIGHT', 'FEDEX_2_DAY', 'FEDEX_GROUND'];

function fedexPartyProblems(p: Raw | undefined, where: string): string[] {
  const out: string[] = [];
  if (!isText(p?.contact?.personName) && !isText(p?.contact?.companyName)) out.push(`${where}.contact.personName is required`);
  if (!isText(p?.contact?.phoneNumber) || !/^\d{6,15}$/.test(p!.contact.phoneNumber)) out.push(`${where}.contact.phoneNumber is required (6 to 15 digits)`);
  if (!Array.isArray(p?.address?.streetLines) || !isText(p!.address.streetLines[0], 35)) out.push(`${where}.address.streetLines is required (35 characters each)`);
  if (!isText(p?.address?.city, 35)) out.push(`${where}.address.city is required`);
  if (!/^[A-Z]{2}$/.test(String(p?.address?.countryCode))) out.push(`${where}.address.countryCode is required`);
  if (['US', 'CA'].includes(p?.address?.countryCode) && !/^[A-Z]{2}$/.test(String(p?.address?.stateOrProvinceCode))) out.push(`${where}.address.stateOrProvinceCode is required for US and CA`);
  return out;
}

async function fedex(s: State, req: Req): Promise<Answer> {
  if (req.path === '/oauth/token') {
    const form = new URLSearchParams(req.text);
    if (form.get('grant_type') !== 'client_credentials' || !form.get('client_id') || !form.get('client_secret') || s.refused.get('fedex')?.has(form.get('client_id')!)) {
      return fedexError(401, 'NOT.AUTHORIZED.ERROR', 'The given client credentials were not valid. Please modify your request and try again.');
    }
    const token = `fdx-${randomBytes(12).toString('hex')}`;
    s.tokens.add(token);
    return json(200, { access_token: token, token_type: 'bearer', expires_in: 3599, scope: 'CXS' });
  }
  const bearer = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
  if (!bearer || !s.tokens.has(bearer)) return fedexError(401, 'NOT.AUTHORIZED.ERROR', 'Access token expired. Please modify your request and try again.');
  const b: Raw = req.body ?? {};
  if (req.method === 'POST' && req.path === '/ship/v1/shipments') {
    const rs: Raw = b.requestedShipment ?? {};
    const problems: string[] = [];
    if (!/^\d{9}$/.test(String(b.accountNumber?.value))) problems.push('accountNumber.value is required (9 digits)');
    if (b.labelResponseOptions !== 'LABEL' && b.labelResponseOptions !== 'URL_ONLY') problems.push('labelResponseOptions must be LABEL or URL_ONLY');
    problems.push(...fedexPartyProblems(rs.shipper, 'requestedShipment.shipper'));
    if (!Array.isArray(rs.recipients) || rs.recipients.length === 0) problems.push('requestedShipment.recipients is required');
    else problems.push(...fedexPartyProblems(rs.recipients[0], 'requestedShipment.recipients[0]'));
    if (!fedexServiceTypes.includes(rs.serviceType)) problems.push(`requestedShipment.serviceType ${rs.serviceType} is not a service type`);
    if (!isText(rs.packagingType) || !isText(rs.pickupType)) problems.push('requestedShipment.packagingType and pickupType are required');
    if (rs.labelSpecification?.imageType !== 'PDF' || !isText(rs.labelSpecification?.labelStockType)) problems.push('requestedShipment.labelSpecification.imageType and labelStockType are required');
    const items: Raw[] = Array.isArray(rs.requestedPackageLineItems) ? rs.requestedPackageLineItems : [];
    if (!items.length) problems.push('requestedShipment.requestedPackageLineItems is required');
    items.forEach((p, i) => {
      if (!['KG', 'LB'].includes(p.weight?.units) || !isNumber(p.weight?.value)) problems.push(`requestedPackageLineItems[${i}].weight is required (units KG or LB)`);
      if (p.dimensions && (!['CM', 'IN'].includes(p.dimensions.units) || (p.weight?.units === 'KG') !== (p.dimensions.units === 'CM'))) problems.push(`requestedPackageLineItems[${i}].dimensions.units must go with the weight units (KG with CM, LB with IN)`);
      if (p.dimensions && ![p.dimensions.length, p.dimensions.width, p.dimensions.height].every((n) => Number.isInteger(n) && n > 0)) problems.push(`requestedPackageLineItems[${i}].dimensions must be whole numbers`);
    });
    const international = rs.shipper?.address?.countryCode !== rs.recipients?.[0]?.address?.countryCode;
    if (international) {
      const commodities: Raw[] = rs.customsClearanceDetail?.commodities ?? [];
      if (!rs.customsClearanceDetail?.dutiesPayment?.paymentType) problems.push('customsClearanceDetail.dutiesPayment is required for international shipments');
      if (!commodities.length) problems.push('customsClearanceDetail.commodities is required for international shipments');
      commodities.forEach((c, i) => {
        if (!isText(c.description, 450) || !/^[A-Z]{2}$/.test(String(c.countryOfManufacture)) || !isNumber(c.quantity) || !c.customsValue?.currency || !isNumber(c.weight?.value)) {
          problems.push(`customsClearanceDetail.commodities[${i}] needs description, countryOfManufacture, quantity, customsValue and weight`);
        }
      });
    }
    if (problems.length) return fedexError(400, 'SHIPMENT.VALIDATION.ERROR', problems.join('; '));
    if (rs.recipients[0].address.postalCode === '00000') return fedexError(400, 'RECIPIENTS.POSTALCODE.INVALID', 'Recipient postal code or routing code is invalid.');
    const trackingNumber = digits(12);
    const units = items[0].weight.units as string;
    const pieces = items.map((p) => ({ weight: kgOf(p.weight.value, units), length: cmOf(p.dimensions?.length ?? 1, p.dimensions?.units ?? 'CM'), width: cmOf(p.dimensions?.width ?? 1, p.dimensions?.units ?? 'CM'), height: cmOf(p.dimensions?.height ?? 1, p.dimensions?.units ?? 'CM') }));
    const addr = (p: Raw): LabelAddress => ({ name: p.contact.personName, address1: p.address.streetLines[0], city: p.address.city, state: p.address.stateOrProvinceCode ?? '', postal_code: p.address.postalCode ?? '', country: p.address.countryCode });
    const label = await pdfLabel('fedex', rs.serviceType, trackingNumber, items[0].customerReferences?.[0]?.value ?? '', addr(rs.shipper), addr(rs.recipients[0]), pieces);
    s.shipments.set(trackingNumber, { carrier: 'fedex', trackingNumber, reference: trackingNumber, service: rs.serviceType, createdAt: now().getTime(), voided: false, international, label });
    const kg = pieces.reduce((a, p) => a + p.weight, 0);
    const encoded = label.toString('base64');
    return json(200, {
      transactionId: randomBytes(8).toString('hex'),
      output: {
        transactionShipments: [
          {
            masterTrackingNumber: trackingNumber,
            serviceType: rs.serviceType,
            shipDatestamp: rs.shipDatestamp ?? day(now().getTime()),
            serviceName: rs.serviceType,
            pieceResponses: pieces.map((_, i) => ({
              trackingNumber: i === 0 ? trackingNumber : digits(12),
              deliveryDatestamp: businessDaysAfter(now().getTime(), international ? 3 : 2),
              packageDocuments: [{ contentType: 'LABEL', copiesToPrint: 1, encodedLabel: encoded, docType: 'PDF' }],
            })),
            shipmentDocuments: pieces.length > 1 ? [{ contentType: 'MERGED_LABEL_DOCUMENTS', copiesToPrint: 1, encodedLabel: encoded, docType: 'PDF' }] : [],
            completedShipmentDetail: {
              shipmentRating: { actualRateType: 'PAYOR_ACCOUNT_SHIPMENT', shipmentRateDetails: [{ rateType: 'PAYOR_ACCOUNT_SHIPMENT', totalNetCharge: price(international ? 45 : 12, international ? 11.5 : 2.4, kg), currency: 'USD' }] },
              operationalDetail: { deliveryDate: `${businessDaysAfter(now().getTime(), international ? 3 : 2)}T20:00:00` },
            },
          },
        ],
      },
    });
  }
  if (req.method === 'PUT' && req.path === '/ship/v1/shipments/cancel') {
    if (!/^\d{9}$/.test(String(b.accountNumber?.value)) || !isText(b.trackingNumber)) return fedexError(400, 'SHIPMENT.VALIDATION.ERROR', 'accountNumber and trackingNumber are required');
    const sh = s.shipments.get(b.trackingNumber);
    if (!sh || sh.carrier !== 'fedex') return fedexError(404, 'TRACKING.TRACKINGNUMBER.NOTFOUND', 'Tracking number cannot be found. Please correct the tracking number and try again.');
    if (trackingStatus(s, sh) === 'delivered') return fedexError(400, 'SHIPMENT.CANCEL.NOTALLOWED', 'Shipment has already been delivered and cannot be cancelled.');
    sh.voided = true;
    return json(200, { transactionId: randomBytes(8).toString('hex'), output: { cancelledShipment: true, cancelledHistory: true, successMessage: 'Success' } });
  }
  if (req.method === 'POST' && req.path === '/track/v1/trackingnumbers') {
    const n = b.trackingInfo?.[0]?.trackingNumberInfo?.trackingNumber;
    if (!isText(n)) return fedexError(400, 'TRACKING.TRACKINGNUMBER.EMPTY', 'Please provide tracking number.');
    const sh = s.shipments.get(n);
    if (!sh || sh.carrier !== 'fedex') {
      return json(200, { output: { completeTrackResults: [{ trackingNumber: n, trackResults: [{ trackingNumberInfo: { trackingNumber: n }, error: { code: 'TRACKING.TRACKINGNUMBER.NOTFOUND', message: 'Tracking number cannot be found.' } }] }] } });
    }
    const st = sh.voided ? 'CA' : { in_transit: 'IT', out_for_delivery: 'OD', delivered: 'DL' }[trackingStatus(s, sh)];
    const words: Record<string, string> = { IT: 'In transit', OD: 'On FedEx vehicle for delivery', DL: 'Delivered', CA: 'Shipment cancelled' };
    const at = new Date(Math.min(now().getTime(), sh.createdAt + (st === 'DL' ? 2 : st === 'OD' ? 1 : 0) * s.stepMs)).toISOString();
    return json(200, {
      transactionId: randomBytes(8).toString('hex'),
      output: {
        completeTrackResults: [
          {
            trackingNumber: n,
            trackResults: [
              {
                trackingNumberInfo: { trackingNumber: n, carrierCode: 'FDXE' },
                latestStatusDetail: { code: st, derivedCode: st, statusByLocale: words[st], description: words[st] },
                dateAndTimes: st === 'DL' ? [{ type: 'ACTUAL_DELIVERY', dateTime: at }] : [{ type: 'ACTUAL_PICKUP', dateTime: new Date(sh.createdAt).toISOString() }],
                scanEvents: [{ date: at, eventType: st, eventDescription: words[st] }],
              },
            ],
          },
        ],
      },
    });
  }
  if (req.method === 'POST' && req.path === '/rate/v1/rates/quotes') {
    const rs: Raw = b.requestedShipment ?? {};
    const problems: string[] = [];
    if (!/^\d{9}$/.test(String(b.accountNumber?.value))) problems.push('accountNumber.value is required (9 digits)');
    for (const who of ['shipper', 'recipient']) if (!/^[A-Z]{2}$/.test(String(rs[who]?.address?.countryCode)) || !isText(rs[who]?.address?.postalCode)) problems.push(`requestedShipment.${who}.address needs postalCode and countryCode`);
    const items: Raw[] = Array.isArray(rs.requestedPackageLineItems) ? rs.requestedPackageLineItems : [];
    if (!items.length || !items.every((p) => ['KG', 'LB'].includes(p.weight?.units) && isNumber(p.weight?.value))) problems.push('requestedShipment.requestedPackageLineItems need a weight');
    if (problems.length) return fedexError(400, 'RATE.VALIDATION.ERROR', problems.join('; '));
    if (rs.recipient.address.postalCode === '00000') return fedexError(400, 'RATE.LOCATION.NOSERVICE', 'FedEx does not serve this destination postal code.');
    const kg = items.reduce((a, p) => a + kgOf(p.weight.value, p.weight.units), 0);
    const international = rs.shipper.address.countryCode !== rs.recipient.address.countryCode;
    const offers = international
      ? [['FEDEX_INTERNATIONAL_PRIORITY', 'FedEx International Priority®', 45, 11.5, 'THREE_DAYS', 3], ['INTERNATIONAL_ECONOMY', 'FedEx International Economy®', 38, 8.25, 'FIVE_DAYS', 5]]
      : [['PRIORITY_OVERNIGHT', 'FedEx Priority Overnight®', 28, 3.1, 'ONE_DAY', 1], ['FEDEX_2_DAY', 'FedEx 2Day®', 16, 2.4, 'TWO_DAYS', 2], ['FEDEX_GROUND', 'FedEx Ground®', 9, 1.1, 'FIVE_DAYS', 5]];
    return json(200, {
      transactionId: randomBytes(8).toString('hex'),
      output: {
        rateReplyDetails: offers.map(([code, name, base, perKg, transit, days]) => ({
          serviceType: code,
          serviceName: name,
          packagingType: 'YOUR_PACKAGING',
          commit: { dateDetail: { dayFormat: `${businessDaysAfter(now().getTime(), days as number)}T20:00:00` }, transitDays: { minimumTransitTime: transit } },
          ratedShipmentDetails: [{ rateType: 'ACCOUNT', totalNetCharge: price(base as number, perKg as number, kg), currency: 'USD', shipmentRateDetail: { currency: 'USD' } }],
        })),
      },
    });
  }
  return fedexError(404, 'NOT.FOUND.ERROR', 'The resource you requested is no longer available.');
}

// ---------------------------------------------------------------------------------------------
// UPS

const upsError = (status: number, code: string, message: string): Answer => json(status, { response: { errors: [{ code, message }] } });
const upsServiceCodes = ['07', '08', '65', '11', '01', '02', '03'];
const asList = (v: unknown): Raw[] => (v === undefined ? [] : Array.isArray(v) ? v : [v as Raw]);

function upsPartyProblems(p: Raw | undefined, where: string, phone: boolean): string[] {
  const out: string[] = [];
  if (!isText(p?.Name, 35)) out.push(`${where}/Name is required (35 characters)`);
  if (phone && !/^\d{6,15}$/.test(String(p?.Phone?.Number))) out.push(`${where}/Phone/Number is required`);
  const a = p?.Address;
  if (!Array.isArray(a?.AddressLine) || !isText(a.AddressLine[0], 35)) out.push(`${where}/Address/AddressLine is required`);
  if (!isText(a?.City, 30)) out.push(`${where}/Address/City is required`);
  if (!/^[A-Z]{2}$/.test(String(a?.CountryCode))) out.push(`${where}/Address/CountryCode is required`);
  if (['US', 'CA'].includes(a?.CountryCode) && !/^[A-Z]{2}$/.test(String(a?.StateProvinceCode))) out.push(`${where}/Address/StateProvinceCode is required for US and CA`);
  return out;
}

async function ups(s: State, req: Req): Promise<Answer> {
  if (req.path === '/security/v1/oauth/token') {
    const basic = /^Basic (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
    const [id, secret] = basic ? Buffer.from(basic, 'base64').toString('utf8').split(':') : [];
    if (!id || !secret || s.refused.get('ups')?.has(id)) return upsError(401, '10401', 'ClientId is Invalid');
    if (new URLSearchParams(req.text).get('grant_type') !== 'client_credentials') return upsError(400, '10400', 'Invalid/Missing grant_type');
    const token = `ups-${randomBytes(12).toString('hex')}`;
    s.tokens.add(token);
    return json(200, { token_type: 'Bearer', issued_at: String(now().getTime()), client_id: id, access_token: token, expires_in: '14399', status: 'approved' });
  }
  const bearer = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
  if (!bearer || !s.tokens.has(bearer)) return upsError(401, '250002', 'Invalid Authentication Information.');
  if (!req.headers.transid || !req.headers.transactionsrc) return upsError(400, '250003', 'Missing transId or transactionSrc header.');
  const b: Raw = req.body ?? {};
  if (req.method === 'POST' && req.path === '/api/shipments/v2409/ship') {
    const sr: Raw = b.ShipmentRequest ?? {};
    const sh: Raw = sr.Shipment ?? {};
    const problems: string[] = [];
    if (!/^[A-Z0-9]{6}$/.test(String(sh.Shipper?.ShipperNumber))) problems.push('Missing or invalid shipper number');
    problems.push(...upsPartyProblems(sh.Shipper, 'Shipper', true), ...upsPartyProblems(sh.ShipTo, 'ShipTo', true));
    if (!upsServiceCodes.includes(sh.Service?.Code)) problems.push(`Invalid Service Code ${sh.Service?.Code}`);
    if (!asList(sh.PaymentInformation?.ShipmentCharge).some((c) => c.BillShipper?.AccountNumber)) problems.push('Missing PaymentInformation/ShipmentCharge/BillShipper');
    const packages = asList(sh.Package);
    if (!packages.length) problems.push('Missing Package');
    packages.forEach((p, i) => {
      const wu = p.PackageWeight?.UnitOfMeasurement?.Code;
      const du = p.Dimensions?.UnitOfMeasurement?.Code;
      if (!['LBS', 'KGS'].includes(wu) || !isNumeric(p.PackageWeight?.Weight)) problems.push(`Package[${i}]/PackageWeight is invalid`);
      if (p.Dimensions && (!['IN', 'CM'].includes(du) || (wu === 'LBS') !== (du === 'IN'))) problems.push(`Package[${i}]/Dimensions/UnitOfMeasurement must go with the weight (LBS with IN, KGS with CM)`);
    });
    const international = sh.Shipper?.Address?.CountryCode !== sh.ShipTo?.Address?.CountryCode;
    if (international) {
      const forms: Raw = sh.ShipmentServiceOptions?.InternationalForms ?? {};
      const products = asList(forms.Product);
      if (!forms.FormType || !isText(forms.CurrencyCode) || !isText(forms.ReasonForExport)) problems.push('InternationalForms needs FormType, CurrencyCode and ReasonForExport');
      if (!products.length) problems.push('InternationalForms/Product is required');
      products.forEach((p, i) => {
        if (!asList(p.Description).length || !isNumeric(p.Unit?.Number) || !/^\d+(\.\d+)?$/.test(String(p.Unit?.Value)) || !/^[A-Z]{2}$/.test(String(p.OriginCountryCode))) problems.push(`InternationalForms/Product[${i}] needs Description, Unit and OriginCountryCode`);
      });
    }
    if (sr.LabelSpecification?.LabelImageFormat?.Code !== 'GIF') problems.push('LabelSpecification/LabelImageFormat/Code must be GIF');
    if (problems.length) return upsError(400, '120100', problems.join('; '));
    if (sh.ShipTo.Address.PostalCode === '00000') return upsError(400, '120802', 'Address Validation Error on ShipTo address');
    const reference = `1Z${sh.Shipper.ShipperNumber}${sh.Service.Code.padStart(2, '0')}${digits(8)}`;
    const results = await Promise.all(
      packages.map(async (_, i) => {
        const trackingNumber = i === 0 ? reference : `1Z${sh.Shipper.ShipperNumber}${sh.Service.Code}${digits(8)}`;
        return { TrackingNumber: trackingNumber, ShippingLabel: { ImageFormat: { Code: 'GIF', Description: 'GIF' }, GraphicImage: (await upsGif(trackingNumber)).toString('base64') } };
      }),
    );
    s.shipments.set(reference, { carrier: 'ups', trackingNumber: reference, reference, service: sh.Service.Code, createdAt: now().getTime(), voided: false, international, label: Buffer.alloc(0) });
    const kg = packages.reduce((a, p) => a + kgOf(Number(p.PackageWeight.Weight), p.PackageWeight.UnitOfMeasurement.Code), 0);
    return json(200, {
      ShipmentResponse: {
        Response: { ResponseStatus: { Code: '1', Description: 'Success' }, TransactionReference: { CustomerContext: sr.Request?.TransactionReference?.CustomerContext ?? '' } },
        ShipmentResults: {
          ShipmentCharges: { TotalCharges: { CurrencyCode: 'USD', MonetaryValue: price(international ? 52 : 11, international ? 12.75 : 2.2, kg).toFixed(2) } },
          BillingWeight: { UnitOfMeasurement: { Code: 'LBS' }, Weight: (kg / kgPerLb).toFixed(1) },
          ShipmentIdentificationNumber: reference,
          PackageResults: results.length === 1 ? results[0] : results,
        },
      },
    });
  }
  const voidPath = /^\/api\/shipments\/v2409\/void\/cancel\/([^/]+)$/.exec(req.path);
  if (req.method === 'DELETE' && voidPath) {
    const sh = s.shipments.get(decodeURIComponent(voidPath[1]));
    if (!sh || sh.carrier !== 'ups' || sh.voided) return upsError(400, '190117', 'No shipment found within the allowed void period');
    if (trackingStatus(s, sh) === 'delivered') return upsError(400, '190101', 'Void period has expired');
    sh.voided = true;
    return json(200, { VoidShipmentResponse: { Response: { ResponseStatus: { Code: '1', Description: 'Success' } }, SummaryResult: { Status: { Code: '1', Description: 'Voided' } } } });
  }
  const track = /^\/api\/track\/v1\/details\/([^/]+)$/.exec(req.path);
  if (req.method === 'GET' && track) {
    const n = decodeURIComponent(track[1]);
    const sh = s.shipments.get(n);
    if (!sh || sh.carrier !== 'ups') return upsError(404, 'TW0001', 'Tracking Information Not Found');
    const st = trackingStatus(s, sh);
    const type = sh.voided ? 'MV' : { in_transit: 'I', out_for_delivery: 'O', delivered: 'D' }[st];
    const words: Record<string, string> = { I: 'On the Way', O: 'Out For Delivery Today', D: 'DELIVERED', MV: 'Shipment Voided' };
    const at = new Date(Math.min(now().getTime(), sh.createdAt + (type === 'D' ? 2 : type === 'O' ? 1 : 0) * s.stepMs)).toISOString();
    return json(200, {
      trackResponse: {
        shipment: [
          {
            inquiryNumber: n,
            package: [
              {
                trackingNumber: n,
                currentStatus: { code: type, description: words[type] },
                activity: [{ date: at.slice(0, 10).replace(/-/g, ''), time: at.slice(11, 19).replace(/:/g, ''), status: { type, code: type, description: words[type] } }],
              },
            ],
          },
        ],
      },
    });
  }
  if (req.method === 'POST' && req.path === '/api/rating/v2409/Shop') {
    const sh: Raw = b.RateRequest?.Shipment ?? {};
    const problems: string[] = [];
    if (!/^[A-Z0-9]{6}$/.test(String(sh.Shipper?.ShipperNumber))) problems.push('Missing or invalid shipper number');
    for (const who of ['Shipper', 'ShipTo']) if (!/^[A-Z]{2}$/.test(String(sh[who]?.Address?.CountryCode)) || !isText(sh[who]?.Address?.PostalCode)) problems.push(`${who}/Address needs PostalCode and CountryCode`);
    const packages = asList(sh.Package);
    if (!packages.length || !packages.every((p) => ['LBS', 'KGS'].includes(p.PackageWeight?.UnitOfMeasurement?.Code) && isNumeric(p.PackageWeight?.Weight))) problems.push('Package/PackageWeight is invalid');
    if (problems.length) return upsError(400, '111100', problems.join('; '));
    if (sh.ShipTo.Address.PostalCode === '00000') return upsError(400, '111285', 'The postal code is invalid for the destination country.');
    const kg = packages.reduce((a, p) => a + kgOf(Number(p.PackageWeight.Weight), p.PackageWeight.UnitOfMeasurement.Code), 0);
    const international = sh.Shipper.Address.CountryCode !== sh.ShipTo.Address.CountryCode;
    const offers: [string, number, number, number][] = international
      ? [['07', 52, 12.75, 2], ['65', 48, 11.9, 3], ['08', 40, 9.4, 5]]
      : [['01', 30, 3.3, 1], ['02', 18, 2.6, 2], ['03', 11, 1.2, 5]];
    return json(200, {
      RateResponse: {
        Response: { ResponseStatus: { Code: '1', Description: 'Success' } },
        RatedShipment: offers.map(([code, base, perKg, days]) => ({
          Service: { Code: code, Description: '' },
          BillingWeight: { UnitOfMeasurement: { Code: 'LBS' }, Weight: (kg / kgPerLb).toFixed(1) },
          TotalCharges: { CurrencyCode: 'USD', MonetaryValue: price(base, perKg, kg).toFixed(2) },
          GuaranteedDelivery: { BusinessDaysInTransit: String(days) },
        })),
      },
    });
  }
  return upsError(404, '250001', 'Invalid request path.');
}

// ---------------------------------------------------------------------------------------------
// DHL Express (MyDHL API)

const dhlError = (status: number, path: string, title: string, detail: string, more: string[] = []): Answer =>
  json(status, { instance: `/expressapi${path}`, detail, title, message: title, status: String(status), ...(more.length ? { additionalDetails: more } : {}) });
const dhlProducts: Record<string, string> = { P: 'EXPRESS WORLDWIDE', Y: 'EXPRESS 12:00', E: 'EXPRESS 9:00', H: 'ECONOMY SELECT', N: 'EXPRESS DOMESTIC' };
const dhlTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2} GMT[+-]\d{2}:\d{2}$/;

function dhlPartyProblems(p: Raw | undefined, where: string): string[] {
  const out: string[] = [];
  const a = p?.postalAddress;
  if (!isText(a?.cityName, 45)) out.push(`${where}.postalAddress.cityName is required`);
  if (!/^[A-Z]{2}$/.test(String(a?.countryCode))) out.push(`${where}.postalAddress.countryCode is required`);
  if (!isText(a?.addressLine1, 45)) out.push(`${where}.postalAddress.addressLine1 is required`);
  if (!isText(p?.contactInformation?.phone, 70)) out.push(`${where}.contactInformation.phone is required`);
  if (!isText(p?.contactInformation?.companyName, 100) || !isText(p?.contactInformation?.fullName, 255)) out.push(`${where}.contactInformation.companyName and fullName are required`);
  return out;
}

async function dhl(s: State, req: Req): Promise<Answer> {
  const basic = /^Basic (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
  const [user, password] = basic ? Buffer.from(basic, 'base64').toString('utf8').split(':') : [];
  if (!user || !password || s.refused.get('dhl')?.has(user)) return dhlError(401, req.path, 'Unauthorized', 'Invalid credentials');
  const ref = req.headers['message-reference'];
  if (ref !== undefined && !/^.{28,36}$/.test(String(ref))) return dhlError(400, req.path, 'Bad request', 'Message-Reference must be 28 to 36 characters');
  const b: Raw = req.body ?? {};
  if (req.method === 'POST' && req.path === '/shipments') {
    const problems: string[] = [];
    if (!dhlTime.test(String(b.plannedShippingDateAndTime))) problems.push('/plannedShippingDateAndTime must be YYYY-MM-DDThh:mm:ss GMT+hh:mm');
    if (!Object.hasOwn(dhlProducts, String(b.productCode))) problems.push(`/productCode ${b.productCode} is not a product`);
    if (!Array.isArray(b.accounts) || !b.accounts.some((a: Raw) => a.typeCode === 'shipper' && /^\d{9}$/.test(String(a.number)))) problems.push('/accounts needs the shipper account (9 digits)');
    if (b.outputImageProperties?.encodingFormat !== 'pdf') problems.push('/outputImageProperties/encodingFormat must be pdf');
    problems.push(...dhlPartyProblems(b.customerDetails?.shipperDetails, '/customerDetails/shipperDetails'), ...dhlPartyProblems(b.customerDetails?.receiverDetails, '/customerDetails/receiverDetails'));
    const c: Raw = b.content ?? {};
    if (!['metric', 'imperial'].includes(c.unitOfMeasurement)) problems.push('/content/unitOfMeasurement must be metric or imperial');
    if (!isText(c.description, 70) || !isText(c.incoterm, 3) || typeof c.isCustomsDeclarable !== 'boolean') problems.push('/content needs description, incoterm and isCustomsDeclarable');
    const packages: Raw[] = Array.isArray(c.packages) ? c.packages : [];
    if (!packages.length) problems.push('/content/packages is required');
    packages.forEach((p, i) => {
      if (!isNumber(p.weight) || !p.dimensions || ![p.dimensions.length, p.dimensions.width, p.dimensions.height].every(isNumber)) problems.push(`/content/packages/${i} needs weight and dimensions`);
    });
    if (c.isCustomsDeclarable) {
      const lines: Raw[] = c.exportDeclaration?.lineItems ?? [];
      if (!isNumber(c.declaredValue) || !isText(c.declaredValueCurrency, 3)) problems.push('/content/declaredValue and declaredValueCurrency are required for a customs declarable shipment');
      if (!lines.length) problems.push('/content/exportDeclaration/lineItems is required for a customs declarable shipment');
      lines.forEach((l, i) => {
        if (!isNumber(l.number) || !isText(l.description, 512) || typeof l.price !== 'number' || !isNumber(l.quantity?.value) || !/^[A-Z]{2}$/.test(String(l.manufacturerCountry)) || !isNumber(l.weight?.netValue) || !isText(l.exportReasonType)) {
          problems.push(`/content/exportDeclaration/lineItems/${i} needs number, description, price, quantity, manufacturerCountry, weight and exportReasonType`);
        }
      });
    }
    if (problems.length) return dhlError(400, req.path, 'Validation error', 'Multiple problems found, see Additional Details', problems);
    if (b.customerDetails.receiverDetails.postalAddress.postalCode === '00000') return dhlError(422, req.path, 'Unprocessable Entity', '1001: The requested product(s) (P) not available based on your search criteria.', ['Receiver postal code 00000 is invalid']);
    const trackingNumber = digits(10);
    const international = b.customerDetails.shipperDetails.postalAddress.countryCode !== b.customerDetails.receiverDetails.postalAddress.countryCode;
    const metric = c.unitOfMeasurement === 'metric';
    const pieces = packages.map((p) => ({ weight: metric ? p.weight : p.weight * kgPerLb, length: metric ? p.dimensions.length : p.dimensions.length * cmPerIn, width: metric ? p.dimensions.width : p.dimensions.width * cmPerIn, height: metric ? p.dimensions.height : p.dimensions.height * cmPerIn }));
    const addr = (p: Raw): LabelAddress => ({ name: p.contactInformation.fullName, address1: p.postalAddress.addressLine1, city: p.postalAddress.cityName, state: p.postalAddress.provinceName ?? '', postal_code: p.postalAddress.postalCode ?? '', country: p.postalAddress.countryCode });
    const label = await pdfLabel('dhl', dhlProducts[b.productCode], trackingNumber, b.customerReferences?.[0]?.value ?? '', addr(b.customerDetails.shipperDetails), addr(b.customerDetails.receiverDetails), pieces);
    s.shipments.set(trackingNumber, { carrier: 'dhl', trackingNumber, reference: trackingNumber, service: b.productCode, createdAt: now().getTime(), voided: false, international, label });
    const kg = pieces.reduce((a, p) => a + p.weight, 0);
    return json(201, {
      url: `/expressapi/shipments/${trackingNumber}`,
      shipmentTrackingNumber: trackingNumber,
      trackingUrl: `https://express.api.dhl.com/mydhlapi/shipments/${trackingNumber}/tracking`,
      packages: pieces.map((_, i) => ({ referenceNumber: i + 1, trackingNumber: `JD01${digits(16)}`, trackingUrl: '' })),
      documents: [{ imageFormat: 'PDF', content: label.toString('base64'), typeCode: 'label' }],
      shipmentCharges: [{ currencyType: 'BILLC', priceCurrency: 'USD', price: price(international ? 49 : 14, international ? 10.8 : 2, kg), serviceBreakdown: [] }],
      ...(b.estimatedDeliveryDate?.isRequested ? { estimatedDeliveryDate: { estimatedDeliveryDate: businessDaysAfter(now().getTime(), international ? 2 : 1), estimatedDeliveryType: 'QDDC' } } : {}),
    });
  }
  if (req.method === 'POST' && req.path === '/rates') {
    const problems: string[] = [];
    for (const who of ['shipperDetails', 'receiverDetails']) {
      const p: Raw | undefined = b.customerDetails?.[who];
      if (!/^[A-Z]{2}$/.test(String(p?.countryCode)) || !isText(p?.cityName)) problems.push(`/customerDetails/${who} needs countryCode and cityName`);
    }
    if (!dhlTime.test(String(b.plannedShippingDateAndTime))) problems.push('/plannedShippingDateAndTime must be YYYY-MM-DDThh:mm:ss GMT+hh:mm');
    if (!Array.isArray(b.accounts) || !b.accounts.some((a: Raw) => a.typeCode === 'shipper' && /^\d{9}$/.test(String(a.number)))) problems.push('/accounts needs the shipper account');
    if (!Array.isArray(b.packages) || !b.packages.length || !b.packages.every((p: Raw) => isNumber(p.weight))) problems.push('/packages need a weight');
    if (problems.length) return dhlError(400, req.path, 'Validation error', 'Multiple problems found, see Additional Details', problems);
    if (b.customerDetails.receiverDetails.postalCode === '00000') return dhlError(422, req.path, 'Unprocessable Entity', '1001: The requested product(s) not available based on your search criteria.');
    const kg = b.packages.reduce((a: number, p: Raw) => a + (b.unitOfMeasurement === 'imperial' ? p.weight * kgPerLb : p.weight), 0);
    const international = b.customerDetails.shipperDetails.countryCode !== b.customerDetails.receiverDetails.countryCode;
    const offers: [string, number, number, number][] = international ? [['P', 49, 10.8, 2], ['Y', 61, 12.1, 2], ['H', 35, 7.9, 5]] : [['N', 14, 2, 1]];
    return json(200, {
      products: offers.map(([code, base, perKg, days]) => ({
        productName: dhlProducts[code],
        productCode: code,
        localProductCode: code,
        networkTypeCode: 'TD',
        weight: { volumetric: 0, provided: kg, unitOfMeasurement: 'metric' },
        totalPrice: [{ currencyType: 'BILLC', priceCurrency: 'USD', price: price(base, perKg, kg) }],
        deliveryCapabilities: { deliveryTypeCode: 'QDDC', estimatedDeliveryDateAndTime: `${businessDaysAfter(now().getTime(), days)}T23:59:00`, totalTransitDays: days },
      })),
    });
  }
  const track = /^\/shipments\/([^/]+)\/tracking$/.exec(req.path);
  if (req.method === 'GET' && track) {
    const n = decodeURIComponent(track[1]);
    const sh = s.shipments.get(n);
    if (!sh || sh.carrier !== 'dhl') return dhlError(404, req.path, 'Not Found', 'No shipment with given tracking number found.');
    const st = trackingStatus(s, sh);
    const steps: [string, string][] = [['PU', 'Shipment picked up'], ['WC', 'Shipment is out with courier for delivery'], ['OK', 'Delivered']];
    const reached = st === 'delivered' ? 3 : st === 'out_for_delivery' ? 2 : 1;
    return json(200, {
      shipments: [
        {
          shipmentTrackingNumber: n,
          status: 'Success',
          events: steps.slice(0, reached).map(([typeCode, description], i) => {
            const at = new Date(sh.createdAt + i * s.stepMs).toISOString();
            return { date: at.slice(0, 10), time: at.slice(11, 19), GMTOffset: '+00:00', typeCode, description };
          }),
        },
      ],
    });
  }
  return dhlError(404, req.path, 'Not Found', 'The requested resource does not exist.');
}

// ---------------------------------------------------------------------------------------------
// USPS

const uspsError = (status: number, api: string, message: string, errors: { title: string; detail: string }[] = []): Answer =>
  json(status, { apiVersion: api, error: { code: String(status), message, errors: errors.map((e) => ({ status: String(status), code: String(status), ...e })) } });
const uspsDomestic = ['PRIORITY_MAIL_EXPRESS', 'PRIORITY_MAIL', 'USPS_GROUND_ADVANTAGE'];
const uspsInternational = ['PRIORITY_MAIL_EXPRESS_INTERNATIONAL', 'PRIORITY_MAIL_INTERNATIONAL', 'FIRST-CLASS_PACKAGE_INTERNATIONAL_SERVICE'];

async function usps(s: State, req: Req): Promise<Answer> {
  if (req.path === '/oauth2/v3/token') {
    const b: Raw = req.body ?? {};
    if (b.grant_type !== 'client_credentials' || !isText(b.client_id) || !isText(b.client_secret) || s.refused.get('usps')?.has(b.client_id)) {
      return json(401, { error: 'invalid_client', error_description: 'Client authentication failed (e.g., unknown client, no client authentication included, or unsupported authentication method).' });
    }
    const token = `usps-${randomBytes(12).toString('hex')}`;
    s.tokens.add(token);
    return json(200, { access_token: token, token_type: 'Bearer', issued_at: now().getTime(), expires_in: 28799, status: 'approved', scope: 'labels prices tracking payments', issuer: 'api.usps.com', client_id: b.client_id });
  }
  const bearer = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
  if (!bearer || !s.tokens.has(bearer)) return json(401, { error: 'invalid_token', error_description: 'The access token is missing, expired or invalid.' });
  const b: Raw = req.body ?? {};
  if (req.method === 'POST' && req.path === '/payments/v3/payment-authorization') {
    const roles: Raw[] = Array.isArray(b.roles) ? b.roles : [];
    const payer = roles.find((r) => r.roleName === 'PAYER');
    const owner = roles.find((r) => r.roleName === 'LABEL_OWNER');
    if (!payer || !/^\d{4,15}$/.test(String(payer.CRID)) || !/^(\d{6}|\d{9})$/.test(String(payer.MID)) || payer.accountType !== 'EPS' || !/^\d{10}$/.test(String(payer.accountNumber)) || !owner) {
      return uspsError(400, '/payments/v3', 'Invalid payment authorization roles', [{ title: 'roles', detail: 'A PAYER with CRID, MID, accountType EPS and accountNumber, and a LABEL_OWNER, are required.' }]);
    }
    const token = `pay-${randomBytes(12).toString('hex')}`;
    s.tokens.add(token);
    return json(200, { paymentAuthorizationToken: token, roles });
  }
  const labelPaths = ['/labels/v3/label', '/international-labels/v3/international-label'];
  if (req.method === 'POST' && labelPaths.includes(req.path)) {
    const international = req.path.startsWith('/international');
    const api = international ? '/international-labels/v3/' : '/labels/v3/';
    if (!s.tokens.has(String(req.headers['x-payment-authorization-token']))) return uspsError(401, api, 'Missing or invalid X-Payment-Authorization-Token');
    if (!String(req.headers.accept ?? '').includes('application/vnd.usps.labels+json')) return uspsError(406, api, 'This fake answers labels as JSON only: send Accept: application/vnd.usps.labels+json.');
    const problems: { title: string; detail: string }[] = [];
    const need = (ok: boolean, title: string, detail: string) => void (ok || problems.push({ title, detail }));
    need(b.imageInfo?.imageType === 'PDF' && isText(b.imageInfo?.labelType), 'imageInfo', 'imageType PDF and labelType are required');
    const from: Raw = b.fromAddress ?? {};
    need(isText(from.streetAddress, 50) && isText(from.city, 28) && /^[A-Z]{2}$/.test(String(from.state)) && /^\d{5}$/.test(String(from.ZIPCode)), 'fromAddress', 'streetAddress, city, state (2 letters) and ZIPCode (5 digits) are required');
    const to: Raw = b.toAddress ?? {};
    if (international) need(isText(to.streetAddress, 50) && isText(to.city, 50) && /^[A-Z]{2}$/.test(String(to.countryISOAlpha2Code)), 'toAddress', 'streetAddress, city and countryISOAlpha2Code are required');
    else need(isText(to.streetAddress, 50) && isText(to.city, 28) && /^[A-Z]{2}$/.test(String(to.state)) && /^\d{5}$/.test(String(to.ZIPCode)), 'toAddress', 'streetAddress, city, state and ZIPCode are required');
    const pd: Raw = b.packageDescription ?? {};
    need((international ? uspsInternational : uspsDomestic).includes(pd.mailClass), 'packageDescription.mailClass', `${pd.mailClass} is not a ${international ? 'international' : 'domestic'} mail class`);
    need(pd.weightUOM === 'lb' && isNumber(pd.weight) && pd.weight <= 70, 'packageDescription.weight', 'weightUOM lb and a weight up to 70 lb are required');
    need(pd.dimensionsUOM === 'in' && [pd.length, pd.width, pd.height].every(isNumber), 'packageDescription.dimensions', 'dimensionsUOM in and length, width, height are required');
    need(/^\d{4}-\d{2}-\d{2}$/.test(String(pd.mailingDate)), 'packageDescription.mailingDate', 'mailingDate YYYY-MM-DD is required');
    if (international) {
      const contents: Raw[] = b.customsForm?.contents ?? [];
      need(isText(b.customsForm?.customsContentType) && contents.length > 0, 'customsForm', 'customsContentType and contents are required');
      contents.forEach((c, i) =>
        need(isText(c.itemDescription, 30) && isNumber(c.itemQuantity) && typeof c.itemValue === 'number' && isNumber(c.itemWeight) && /^[A-Z]{2}$/.test(String(c.countryofOrigin)), `customsForm.contents[${i}]`, 'itemDescription, itemQuantity, itemValue, itemWeight and countryofOrigin are required'),
      );
    }
    if (problems.length) return uspsError(400, api, 'OASValidation failed', problems);
    if ((to.ZIPCode ?? to.postalCode) === '00000') return uspsError(400, api, 'Address Not Found.', [{ title: 'toAddress', detail: 'The destination address could not be found.' }]);
    const trackingNumber = international ? `${pd.mailClass.startsWith('PRIORITY_MAIL_EXPRESS') ? 'EC' : 'CP'}${digits(9)}US` : `9205${digits(18)}`;
    const addr = (p: Raw): LabelAddress => ({ name: `${p.firstName ?? ''} ${p.lastName ?? ''}`.trim() || (p.firm ?? '-'), address1: p.streetAddress, city: p.city, state: p.state ?? p.province ?? '', postal_code: p.ZIPCode ?? p.postalCode ?? '', country: p.countryISOAlpha2Code ?? 'US' });
    const pieces = [{ weight: pd.weight * kgPerLb, length: pd.length * cmPerIn, width: pd.width * cmPerIn, height: pd.height * cmPerIn }];
    const label = await pdfLabel('usps', pd.mailClass, trackingNumber, pd.customerReference?.[0]?.referenceNumber ?? '', addr(from), addr(to), pieces);
    s.shipments.set(trackingNumber, { carrier: 'usps', trackingNumber, reference: trackingNumber, service: pd.mailClass, createdAt: now().getTime(), voided: false, international, label });
    const postage = price(international ? 42 : 9, international ? 9.9 : 1.9, pieces[0].weight);
    return json(200, {
      labelAddress: to,
      routingInformation: international ? undefined : `420${to.ZIPCode}`,
      labelImage: label.toString('base64'),
      labelMetadata: { ...(international ? { internationalTrackingNumber: trackingNumber } : { trackingNumber }), postage, weightUOM: 'lb', weight: pd.weight, fees: [], SKU: `DPXX0XXXXX${digits(5)}` },
    });
  }
  const cancel = /^\/(labels\/v3\/label|international-labels\/v3\/international-label)\/([^/]+)$/.exec(req.path);
  if (req.method === 'DELETE' && cancel) {
    const api = cancel[1].startsWith('international') ? '/international-labels/v3/' : '/labels/v3/';
    const sh = s.shipments.get(decodeURIComponent(cancel[2]));
    if (!sh || sh.carrier !== 'usps' || sh.international !== cancel[1].startsWith('international')) return uspsError(404, api, 'Label not found.');
    if (sh.voided) return uspsError(400, api, 'The label has already been cancelled.');
    if (trackingStatus(s, sh) === 'delivered') return uspsError(400, api, 'The label has been used and cannot be cancelled.');
    sh.voided = true;
    return json(200, { trackingNumber: sh.trackingNumber, status: 'CANCELED' });
  }
  if (req.method === 'POST' && (req.path === '/prices/v3/base-rates/search' || req.path === '/international-prices/v3/base-rates/search')) {
    const international = req.path.startsWith('/international');
    const api = international ? '/international-prices/v3/' : '/prices/v3/';
    const problems: { title: string; detail: string }[] = [];
    if (!/^\d{5}$/.test(String(b.originZIPCode))) problems.push({ title: 'originZIPCode', detail: 'originZIPCode (5 digits) is required' });
    if (international ? !/^[A-Z]{2}$/.test(String(b.destinationCountryCode)) : !/^\d{5}$/.test(String(b.destinationZIPCode))) problems.push({ title: 'destination', detail: international ? 'destinationCountryCode is required' : 'destinationZIPCode is required' });
    if (!isNumber(b.weight) || !(international ? uspsInternational : uspsDomestic).includes(b.mailClass)) problems.push({ title: 'weight/mailClass', detail: 'weight (lb) and a mail class are required' });
    if (problems.length) return uspsError(400, api, 'OASValidation failed', problems);
    if ((b.foreignPostalCode ?? b.destinationZIPCode) === '00000') return uspsError(400, api, 'No rates found for the destination.');
    const kg = b.weight * kgPerLb;
    const base: Record<string, [number, number]> = {
      PRIORITY_MAIL_EXPRESS_INTERNATIONAL: [58, 13.2],
      PRIORITY_MAIL_INTERNATIONAL: [42, 9.9],
      'FIRST-CLASS_PACKAGE_INTERNATIONAL_SERVICE': [21, 6.4],
      PRIORITY_MAIL_EXPRESS: [28, 3.9],
      PRIORITY_MAIL: [9, 1.9],
      USPS_GROUND_ADVANTAGE: [6, 1.1],
    };
    const p = price(base[b.mailClass][0], base[b.mailClass][1], kg);
    return json(200, { totalBasePrice: p, rates: [{ SKU: `DPXX0XXXXX${digits(5)}`, description: b.mailClass, priceType: 'COMMERCIAL', price: p, weight: b.weight, fees: [], mailClass: b.mailClass }] });
  }
  const track = /^\/tracking\/v3\/tracking\/([^/]+)$/.exec(req.path);
  if (req.method === 'GET' && track) {
    const n = decodeURIComponent(track[1]);
    const sh = s.shipments.get(n);
    if (!sh || sh.carrier !== 'usps') return uspsError(404, '/tracking/v3/', 'Tracking number not found.');
    const st = trackingStatus(s, sh);
    const category = sh.voided ? 'Pre-Shipment' : { in_transit: 'In Transit', out_for_delivery: 'Out for Delivery', delivered: 'Delivered' }[st];
    const at = new Date(Math.min(now().getTime(), sh.createdAt + (st === 'delivered' ? 2 : st === 'out_for_delivery' ? 1 : 0) * s.stepMs)).toISOString();
    return json(200, { trackingNumber: n, statusCategory: category, status: category, statusSummary: `Your item is ${category.toLowerCase()}.`, trackingEvents: [{ eventType: category, eventTimestamp: at }] });
  }
  return uspsError(404, '/', 'Resource not found.');
}

// ---------------------------------------------------------------------------------------------

const handlers: Record<FakeCarrierName, (s: State, req: Req) => Promise<Answer>> = { fedex, ups, dhl, usps };
const busy: Record<FakeCarrierName, unknown> = {
  fedex: { transactionId: 'busy', errors: [{ code: 'TOO.MANY.REQUESTS.ERROR', message: 'We have received too many requests in a short duration. Please wait a while to try again.' }] },
  ups: { response: { errors: [{ code: '10429', message: 'Too Many Requests' }] } },
  dhl: { instance: '/expressapi', detail: 'Too many requests', title: 'Too Many Requests', status: '429' },
  usps: { apiVersion: '/', error: { code: '429', message: 'Too Many Requests' } },
};

const on = (faultPath: string | undefined, path: string) => !faultPath || path === faultPath || (faultPath.endsWith('/') && path.startsWith(faultPath));

export async function startFakeCarriers(opts: FakeCarriersOptions = {}): Promise<FakeCarriers> {
  const state: State = { tokens: new Set(), refused: new Map(), shipments: new Map(), stepMs: opts.stepMs ?? 10 * 60_000 };
  const requests: CarrierLoggedRequest[] = [];
  const faults: Fault[] = [];
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? '/', 'http://fake');
    const m = /^\/(fedex|ups|dhl|usps)(\/.*)$/.exec(url.pathname);
    if (!m) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"no such carrier"}');
      return;
    }
    const carrier = m[1] as FakeCarrierName;
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    try {
      body = text && String(req.headers['content-type'] ?? '').includes('json') ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    const parsed: Req = { method: req.method ?? 'GET', path: m[2], query: url.searchParams, headers: req.headers, body, text };
    const seen = requests.filter((r) => r.carrier === carrier);
    const fault = faults.find((f) => f.carrier === carrier && on(f.path, parsed.path) && f.nth === seen.filter((r) => on(f.path, r.path)).length + 1);
    let answer: Answer;
    if (fault) faults.splice(faults.indexOf(fault), 1);
    if (fault?.kind === 'status') {
      answer = { status: fault.status, body: fault.status === 429 ? busy[carrier] : { message: 'Internal Server Error' }, headers: fault.headers };
    } else {
      if (fault?.kind === 'stall') await new Promise((r) => setTimeout(r, fault.ms));
      try {
        answer = await handlers[carrier](state, parsed);
      } catch (err) {
        answer = { status: 500, body: { message: `fake ${carrier} failed: ${(err as Error).message}` } };
      }
    }
    requests.push({ n: requests.length + 1, carrier, method: parsed.method, path: parsed.path, headers: req.headers, body: body ?? (text || undefined), status: answer.status });
    if (res.destroyed) return;
    res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
    res.end(JSON.stringify(answer.body));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    shipments: state.shipments,
    rateLimitOn(carrier, nth, retryAfterSeconds, path) {
      faults.push({ carrier, nth, path, kind: 'status', status: 429, headers: retryAfterSeconds === null ? {} : { 'retry-after': String(retryAfterSeconds) }, ms: 0 });
    },
    failOn(carrier, nth, status = 500, path) {
      faults.push({ carrier, nth, path, kind: 'status', status, headers: {}, ms: 0 });
    },
    stallOn(carrier, nth, ms, path) {
      faults.push({ carrier, nth, path, kind: 'stall', status: 0, headers: {}, ms });
    },
    refuse(carrier, clientId) {
      if (!state.refused.has(carrier)) state.refused.set(carrier, new Set());
      state.refused.get(carrier)!.add(clientId);
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
