import { describe, expect, it } from 'vitest';
import { ValidationFailed } from '#core/errors';
import type { CarrierShipmentRequest } from '#core/shipping/carrier';
import { CarrierAnswerUnreadable, requirePhones } from '#core/shipping/carriers/common';
import { fedexMessage, fedexParseRates, fedexShipRequest, fedexStatus } from '#core/shipping/carriers/fedex';
import { upsMessage, upsParseShipment, upsShipRequest, upsStatus } from '#core/shipping/carriers/ups';
import { dhlMessage, dhlParseShipment, dhlShipRequest, dhlStatus } from '#core/shipping/carriers/dhl';
import { uspsCheck, uspsLabelRequest, uspsMessage, uspsStatus } from '#core/shipping/carriers/usps';

const request = (over: Partial<CarrierShipmentRequest> = {}): CarrierShipmentRequest => ({
  shipmentId: 7,
  accountId: 1,
  service: 'international_priority',
  orderNumber: 'WEB-000007',
  shipDate: '2026-11-24',
  shipper: { name: 'Depósito Miami', phone: '+1 305 555 0100', email: null, address1: '2100 NW 42nd Ave', address2: null, city: 'Miami', state: 'FL', postal_code: '33142', country: 'US' },
  recipient: { name: 'María Pérez', phone: '+54 11 5555 0000', email: 'maria@example.com', address1: 'Av. Corrientes 1234', address2: 'Piso 3', city: 'Buenos Aires', state: 'CABA', postal_code: 'C1043', country: 'AR' },
  packages: [{ weight: 1.2, length: 30, width: 20, height: 10 }],
  currency: 'USD',
  customs: [{ description: 'Taza de cerámica', sku: 'MUG-01', quantity: 2, unitValue: 10.1, unitWeight: 0.4, hsCode: '6912.00', originCountry: 'US' }],
  ...over,
});

describe('the carrier mappings', () => {
  it('FedEx: pounds and inches from the US, state codes only for the US and Canada, the customs commodities', () => {
    const body = fedexShipRequest(request(), '740561073');
    const rs = body.requestedShipment;
    expect(rs.requestedPackageLineItems[0]).toMatchObject({ weight: { units: 'LB', value: 2.7 }, dimensions: { length: 12, width: 8, height: 4, units: 'IN' } });
    expect(rs.shipper.address.stateOrProvinceCode).toBe('FL');
    expect(rs.recipients[0].address).not.toHaveProperty('stateOrProvinceCode');
    expect(rs.serviceType).toBe('FEDEX_INTERNATIONAL_PRIORITY');
    expect(rs.customsClearanceDetail?.commodities[0]).toMatchObject({ harmonizedCode: '6912.00', quantity: 2, customsValue: { amount: 20.2, currency: 'USD' }, weight: { units: 'LB', value: 1.8 } });
    expect(fedexShipRequest(request({ recipient: { ...request().recipient, country: 'US', state: 'NY' } }), '740561073').requestedShipment).not.toHaveProperty('customsClearanceDetail');
  });

  it('UPS: strings for numbers, KGS and CM from Argentina, the GIF label asked for', () => {
    const fromAr = request({ service: 'worldwide_saver', shipper: { ...request().shipper, country: 'AR', state: 'CABA' }, recipient: { ...request().recipient, country: 'US', state: 'FL' } });
    const body = upsShipRequest(fromAr, 'A1B2C3');
    expect(body.ShipmentRequest.Shipment.Package[0]).toMatchObject({ PackageWeight: { UnitOfMeasurement: { Code: 'KGS' }, Weight: '1.2' }, Dimensions: { UnitOfMeasurement: { Code: 'CM' }, Length: '30' } });
    expect(body.ShipmentRequest.Shipment.Service.Code).toBe('65');
    expect(body.ShipmentRequest.LabelSpecification.LabelImageFormat.Code).toBe('GIF');
    expect(body.ShipmentRequest.Shipment.ShipmentServiceOptions?.InternationalForms.Product[0]).toMatchObject({ Unit: { Number: '2', Value: '10.10' }, CommodityCode: '691200', OriginCountryCode: 'US' });
  });

  it('UPS: reads one package as an object and several as a list', () => {
    const one = { ShipmentResponse: { ShipmentResults: { ShipmentIdentificationNumber: '1Z1', ShipmentCharges: { TotalCharges: { CurrencyCode: 'USD', MonetaryValue: '45.10' } }, PackageResults: { TrackingNumber: '1Z1', ShippingLabel: { GraphicImage: 'R0lGODlh' } } } } };
    expect(upsParseShipment(one)).toMatchObject({ trackingNumber: '1Z1', reference: '1Z1', cost: { amount: 45.1, currency: 'USD' } });
    expect(() => upsParseShipment({ ShipmentResponse: {} })).toThrow(CarrierAnswerUnreadable);
  });

  it('DHL: metric, the export declaration, and a label that is not a PDF refused', () => {
    const body = dhlShipRequest(request({ service: 'express_worldwide' }), '123456789');
    expect(body.plannedShippingDateAndTime).toBe('2026-11-24T10:00:00 GMT+00:00');
    expect(body.content).toMatchObject({ unitOfMeasurement: 'metric', isCustomsDeclarable: true, declaredValue: 20.2, packages: [{ weight: 1.2, dimensions: { length: 30, width: 20, height: 10 } }] });
    expect(body.content.exportDeclaration?.lineItems[0]).toMatchObject({ commodityCodes: [{ typeCode: 'outbound', value: '6912.00' }], manufacturerCountry: 'US', weight: { netValue: 0.8, grossValue: 0.8 } });
    expect(() => dhlParseShipment({ shipmentTrackingNumber: '1234567890', documents: [{ typeCode: 'label', content: Buffer.from('GIF89a').toString('base64') }] })).toThrow(/not a PDF/);
  });

  it('USPS: pounds and inches always, the international label with its customs form, one package, a service of the route', () => {
    const intl = uspsLabelRequest(request({ service: 'priority_mail_international' }));
    expect(intl.path).toBe('/international-labels/v3/international-label');
    expect(intl.body).toMatchObject({ packageDescription: { weightUOM: 'lb', weight: 2.7, dimensionsUOM: 'in', length: 12 }, customsForm: { contents: [{ itemQuantity: 2, HSTariffNumber: '691200', countryofOrigin: 'US' }] } });
    expect(() => uspsCheck(request({ service: 'priority_mail' }))).toThrow(ValidationFailed);
    const two = (() => {
      try {
        uspsCheck(request({ service: 'priority_mail_international', packages: [request().packages[0], request().packages[0]] }));
      } catch (e) {
        return e as ValidationFailed;
      }
    })();
    expect(two?.errors.packages[0]).toMatch(/one package/);
    expect(() => uspsCheck(request({ service: 'priority_mail_international', shipper: { ...request().shipper, country: 'AR' } }))).toThrow(ValidationFailed);
  });

  it('maps each carrier tracking code to a shipment status', () => {
    expect(['OC', 'IT', 'OD', 'DL', 'DE', 'RS'].map(fedexStatus)).toEqual([null, 'in_transit', 'out_for_delivery', 'delivered', 'exception', 'returned']);
    expect(['M', 'I', 'O', 'D', 'X'].map(upsStatus)).toEqual([null, 'in_transit', 'out_for_delivery', 'delivered', 'exception']);
    expect(['PU', 'WC', 'OK', 'OH', 'RT'].map(dhlStatus)).toEqual(['in_transit', 'out_for_delivery', 'delivered', 'exception', 'returned']);
    expect(['Pre-Shipment', 'In Transit', 'Out for Delivery', 'Delivered', 'Alert'].map(uspsStatus)).toEqual([null, 'in_transit', 'out_for_delivery', 'delivered', 'exception']);
  });

  it("reads each carrier's error body into one line", () => {
    expect(fedexMessage({ transactionId: 'x', errors: [{ code: 'ACCOUNT.NUMBER.MISMATCH', message: 'The account number does not match.' }] })).toBe('ACCOUNT.NUMBER.MISMATCH: The account number does not match.');
    expect(upsMessage({ response: { errors: [{ code: '120802', message: 'Address Validation Error on ShipTo address' }] } })).toBe('120802: Address Validation Error on ShipTo address');
    expect(dhlMessage({ title: 'Validation error', detail: 'Multiple problems', status: '400', additionalDetails: ['a', 'b'] })).toBe('Validation error: Multiple problems (a; b)');
    expect(uspsMessage({ apiVersion: 'v3', error: { code: '400', message: 'OASValidation failed', errors: [{ detail: 'ZIPCode is required' }] } })).toBe('OASValidation failed: ZIPCode is required');
    expect(uspsMessage({ error: 'invalid_client', error_description: 'Client authentication failed' })).toBe('invalid_client: Client authentication failed');
    expect(fedexMessage('<html>')).toBeUndefined();
  });

  it('reads FedEx rates with their transit days and a rate that is not a number refused', () => {
    const body = { output: { rateReplyDetails: [{ serviceType: 'FEDEX_INTERNATIONAL_PRIORITY', serviceName: 'FedEx International Priority®', commit: { transitDays: { minimumTransitTime: 'THREE_DAYS' }, dateDetail: { dayFormat: '2026-11-27T20:00:00' } }, ratedShipmentDetails: [{ totalNetCharge: 58.8, currency: 'USD' }] }] } };
    expect(fedexParseRates(body)).toEqual([{ service: 'international_priority', serviceName: 'FedEx International Priority®', transitDays: 3, deliveryDate: '2026-11-27', cost: { amount: 58.8, currency: 'USD' } }]);
    body.output.rateReplyDetails[0].ratedShipmentDetails[0].totalNetCharge = 'n/a' as never;
    expect(() => fedexParseRates(body)).toThrow(CarrierAnswerUnreadable);
  });

  it('asks for both phones before any call, naming where to set each', () => {
    const failure = (() => {
      try {
        requirePhones('dhl', request({ shipper: { ...request().shipper, phone: null }, recipient: { ...request().recipient, phone: '12' } }));
      } catch (e) {
        return e as ValidationFailed;
      }
    })();
    expect(Object.keys(failure!.errors).sort()).toEqual(['shipping_address.phone', 'warehouse_id']);
  });
});
