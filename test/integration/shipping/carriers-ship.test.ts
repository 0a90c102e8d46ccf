import { afterEach, describe, expect, it } from 'vitest';
import { useTwin } from '#support/twin';
import { merchant, placeOrder, shipBody, warehouse, carrierAccounts } from '#support/orders';
import { printPage, readLabel, scanCode128 } from '#support/labels/label-reading';

const t = useTwin();

const { fedex, ups, dhl, usps } = carrierAccounts;
const accounts = { fedex, ups, dhl, usps };

const services = { fedex: 'international_priority', ups: 'worldwide_saver', dhl: 'express_worldwide', usps: 'priority_mail_international' } as const;
const trackingForm = { fedex: /^\d{12}$/, ups: /^1ZA1B2C365\d{8}$/, dhl: /^\d{10}$/, usps: /^CP\d{9}US$/ } as const;

/** A merchant with every carrier connected and a ship-from warehouse in Miami with a phone. */
async function shipper(name: string) {
  const m = await merchant(t, name);
  expect((await t.call('PUT', '/v1/warehouses/1', { token: m.token, body: { ...warehouse, phone: '+1 305 555 0100' } })).status).toBe(200);
  for (const [carrier, body] of Object.entries(accounts)) expect((await t.call('PUT', `/v1/shipping/carriers/${carrier}`, { token: m.token, body })).status).toBe(200);
  return m;
}

const lastRequest = (carrier: string, path: string) => [...t.twin.carriers.requests].reverse().find((r) => r.carrier === carrier && r.path === path);

afterEach(() => {
  delete process.env.CARRIER_TIMEOUT_MS;
});

describe('shipping with an external carrier', () => {
  for (const carrier of ['fedex', 'ups', 'dhl', 'usps'] as const) {
    it(`ships an order to Argentina with ${carrier}: the carrier's tracking number, and its label served at label_url`, async () => {
      const m = await shipper(`Tienda ${carrier}`);
      const order = await placeOrder(t, m.token);
      const ship = await t.call('POST', `/v1/orders/${order.id}/ship`, {
        token: m.token,
        body: shipBody(order.items.map((i: { id: number; quantity: number }) => ({ order_item_id: i.id, quantity: i.quantity })), { carrier, service: services[carrier] }),
      });
      expect(ship.status, ship.text).toBe(201);
      const data = ship.body.data;
      expect(data).toMatchObject({ carrier, service: services[carrier], fulfillment_status: 'fulfilled' });
      expect(data.tracking_number).toMatch(trackingForm[carrier]);
      expect(t.twin.carriers.shipments.get(data.tracking_number)?.carrier).toBe(carrier);

      const label = await t.call('GET', new URL(data.label_url).pathname.replace(/^\/api/, ''), { token: m.token });
      expect(label.status).toBe(200);
      expect(label.headers.get('content-type')).toBe('application/pdf');
      const pdf = Buffer.from(await (await fetch(data.label_url, { headers: { authorization: `Bearer ${m.token}` } })).arrayBuffer());
      const pages = await readLabel(pdf);
      expect(pages[0].view).toEqual([0, 0, 288, 432]);
      if (carrier !== 'ups') expect(pdf.equals(t.twin.carriers.shipments.get(data.tracking_number)!.label)).toBe(true);
      expect(scanCode128(await printPage(pdf, 1, 203))).toBe(data.tracking_number);

      const shipments = await t.call('GET', `/v1/orders/${order.id}/shipments`, { token: m.token });
      expect(shipments.body.data.shipments[0]).toMatchObject({ carrier, tracking_number: data.tracking_number, status: 'in_transit' });
    });
  }

  it('sends each carrier its units and the customs lines of the items shipped', async () => {
    const m = await shipper('Tienda Unidades');
    const lines = (o: { items: { id: number; quantity: number }[] }) => o.items.map((i) => ({ order_item_id: i.id, quantity: i.quantity }));
    const pkg = { weight: 2.3, length: 30.5, width: 20, height: 10 };
    for (const carrier of ['fedex', 'dhl', 'usps'] as const) {
      const order = await placeOrder(t, m.token);
      const res = await t.call('POST', `/v1/orders/${order.id}/ship`, { token: m.token, body: { carrier, service: services[carrier], packages: [{ ...pkg, items: lines(order) }] } });
      expect(res.status, res.text).toBe(201);
    }
    const fedex = lastRequest('fedex', '/ship/v1/shipments')!.body as any;
    // From the US: pounds and inches, rounded up (2.3 kg = 5.07 lb -> 5.1; 30.5 cm = 12.01 in -> 13).
    expect(fedex.requestedShipment.requestedPackageLineItems[0]).toMatchObject({ weight: { units: 'LB', value: 5.1 }, dimensions: { length: 13, width: 8, height: 4, units: 'IN' } });
    expect(fedex.requestedShipment.customsClearanceDetail.commodities).toEqual([
      expect.objectContaining({ description: 'Taza de cerámica', quantity: 2, countryOfManufacture: 'US', unitPrice: { amount: 10.1, currency: 'USD' }, customsValue: { amount: 20.2, currency: 'USD' } }),
      expect.objectContaining({ description: 'Remera algodón', quantity: 1, countryOfManufacture: 'US' }),
    ]);
    expect(fedex.accountNumber).toEqual({ value: '740561073' });
    const dhl = lastRequest('dhl', '/shipments')!.body as any;
    expect(dhl.content).toMatchObject({ unitOfMeasurement: 'metric', isCustomsDeclarable: true, declaredValue: 20.4, declaredValueCurrency: 'USD', packages: [{ weight: 2.3, dimensions: { length: 31, width: 20, height: 10 } }] });
    const usps = lastRequest('usps', '/international-labels/v3/international-label')!.body as any;
    expect(usps.packageDescription).toMatchObject({ weightUOM: 'lb', weight: 5.1, dimensionsUOM: 'in', length: 13 });
    expect(usps.customsForm.contents[0]).toMatchObject({ itemDescription: 'Taza de cerámica', itemQuantity: 2, itemValue: 10.1, weightUOM: 'lb', countryofOrigin: 'US' });
  });

  it('refuses a carrier whose account is not connected with 422 naming carrier, and ships nothing', async () => {
    const m = await merchant(t, 'Tienda Sin Cuenta');
    const order = await placeOrder(t, m.token);
    const res = await t.call('POST', `/v1/orders/${order.id}/ship`, { token: m.token, body: shipBody([{ order_item_id: order.items[0].id, quantity: 1 }], { carrier: 'dhl', service: 'express_worldwide' }) });
    expect(res.status).toBe(422);
    expect(res.body.errors.carrier[0]).toMatch(/No dhl account is connected; connect one with PUT \/v1\/shipping\/carriers\/dhl/);
    expect((await t.call('GET', `/v1/orders/${order.id}`, { token: m.token })).body.data.fulfillment_status).toBe('unfulfilled');
  });

  it('refuses a service the carrier does not offer, and an unknown carrier, with 422', async () => {
    const m = await shipper('Tienda Servicios');
    const order = await placeOrder(t, m.token);
    const line = [{ order_item_id: order.items[0].id, quantity: 1 }];
    const badService = await t.call('POST', `/v1/orders/${order.id}/ship`, { token: m.token, body: shipBody(line, { carrier: 'fedex', service: 'standard' }) });
    expect(badService.status).toBe(422);
    expect(badService.body.errors.service[0]).toMatch(/fedex offers international_priority/);
    const unknown = await t.call('POST', `/v1/orders/${order.id}/ship`, { token: m.token, body: shipBody(line, { carrier: 'correo', service: 'standard' }) });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors.carrier[0]).toMatch(/despacho, fedex, ups, dhl, usps/);
  });

  it('asks for the phones the carriers require before calling them', async () => {
    const m = await merchant(t, 'Tienda Sin Teléfono');
    await t.call('PUT', '/v1/shipping/carriers/fedex', { token: m.token, body: accounts.fedex });
    const order = await placeOrder(t, m.token, { customer: { name: 'Ana', email: 'ana@example.com' } });
    const before = t.twin.carriers.requests.length;
    const res = await t.call('POST', `/v1/orders/${order.id}/ship`, { token: m.token, body: shipBody([{ order_item_id: order.items[0].id, quantity: 1 }], { carrier: 'fedex', service: 'international_priority' }) });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(['shipping_address.phone', 'warehouse_id']);
    expect(t.twin.carriers.requests.length).toBe(before);
  });

  it('answers refused credentials with 422 naming carrier and the carrier message', async () => {
    const m = await shipper('Tienda Credenciales');
    t.twin.carriers.refuse('ups', 'ups-refused-0001');
    await t.call('PUT', '/v1/shipping/carriers/ups', { token: m.token, body: { ...accounts.ups, client_id: 'ups-refused-0001' } });
    const order = await placeOrder(t, m.token);
    const res = await t.call('POST', `/v1/orders/${order.id}/ship`, { token: m.token, body: shipBody([{ order_item_id: order.items[0].id, quantity: 1 }], { carrier: 'ups', service: 'worldwide_saver' }) });
    expect(res.status).toBe(422);
    expect(res.body.errors.carrier[0]).toMatch(/UPS refused the account's ups credentials \(401: 10401: ClientId is Invalid\); update them with PUT \/v1\/shipping\/carriers\/ups/);
  });

  it("answers a carrier's refusal of the request with 422 carrying the carrier's own message", async () => {
    const m = await shipper('Tienda Dirección');
    for (const [carrier, said] of [
      ['fedex', /FedEx refused the request \(400\): RECIPIENTS.POSTALCODE.INVALID: Recipient postal code or routing code is invalid/],
      ['dhl', /DHL Express refused the request \(422\): Unprocessable Entity: 1001/],
      ['usps', /USPS refused the request \(400\): Address Not Found/],
      ['ups', /UPS refused the request \(400\): 120802: Address Validation Error on ShipTo address/],
    ] as const) {
      const order = await placeOrder(t, m.token, { shipping_address: { name: 'María Pérez', address1: 'Av. Corrientes 1234', city: 'Buenos Aires', state: 'CABA', postal_code: '00000', country: 'AR' } });
      const res = await t.call('POST', `/v1/orders/${order.id}/ship`, { token: m.token, body: shipBody([{ order_item_id: order.items[0].id, quantity: 1 }], { carrier, service: services[carrier] }) });
      expect(res.status, carrier).toBe(422);
      expect(res.body.errors.carrier[0]).toMatch(said);
      expect((await t.call('GET', `/v1/orders/${order.id}`, { token: m.token })).body.data.shipments).toEqual([]);
    }
  });

  it('waits out a 429 and retries, then ships', async () => {
    const m = await shipper('Tienda Paciente');
    const order = await placeOrder(t, m.token);
    const before = t.twin.carriers.requests.filter((r) => r.carrier === 'dhl' && r.path === '/shipments').length;
    t.twin.carriers.rateLimitOn('dhl', before + 1, 0, '/shipments');
    const res = await t.call('POST', `/v1/orders/${order.id}/ship`, { token: m.token, body: shipBody([{ order_item_id: order.items[0].id, quantity: 1 }], { carrier: 'dhl', service: 'express_worldwide' }) });
    expect(res.status, res.text).toBe(201);
    expect(t.twin.carriers.requests.filter((r) => r.carrier === 'dhl' && r.path === '/shipments').slice(before).map((r) => r.status)).toEqual([429, 201]);
  });

  it('answers 502 naming the carrier when it keeps failing, and ships nothing', async () => {
    const m = await shipper('Tienda Caída');
    const order = await placeOrder(t, m.token);
    const before = t.twin.carriers.requests.filter((r) => r.carrier === 'usps' && r.path === '/international-labels/v3/international-label').length;
    for (let i = 1; i <= 4; i++) t.twin.carriers.failOn('usps', before + i, 503, '/international-labels/v3/international-label');
    const res = await t.call('POST', `/v1/orders/${order.id}/ship`, { token: m.token, body: shipBody([{ order_item_id: order.items[0].id, quantity: 1 }], { carrier: 'usps', service: 'priority_mail_international' }) });
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ success: false, error: 'bad_gateway', carrier: 'usps' });
    expect(res.body.message).toMatch(/USPS failed \(503, 4 attempts\)/);
    expect((await t.call('GET', `/v1/orders/${order.id}`, { token: m.token })).body.data.fulfillment_status).toBe('unfulfilled');
  });

  it('answers 504 when the carrier does not answer in time, without asking twice for a label', async () => {
    const m = await shipper('Tienda Lenta');
    const order = await placeOrder(t, m.token);
    process.env.CARRIER_TIMEOUT_MS = '300';
    const before = t.twin.carriers.requests.filter((r) => r.carrier === 'fedex' && r.path === '/ship/v1/shipments').length;
    t.twin.carriers.stallOn('fedex', before + 1, 1500, '/ship/v1/shipments');
    const res = await t.call('POST', `/v1/orders/${order.id}/ship`, { token: m.token, body: shipBody([{ order_item_id: order.items[0].id, quantity: 1 }], { carrier: 'fedex', service: 'international_priority' }) });
    expect(res.status).toBe(504);
    expect(res.body).toMatchObject({ error: 'gateway_timeout', carrier: 'fedex' });
    expect(res.body.message).toMatch(/FedEx did not answer in time/);
    // The fake logs a request when it has answered: wait for the held one, then make sure no second came.
    const labels = () => t.twin.carriers.requests.filter((r) => r.carrier === 'fedex' && r.path === '/ship/v1/shipments').length;
    for (let i = 0; i < 100 && labels() < before + 1; i++) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 500));
    expect(labels()).toBe(before + 1);
  });

  it('keeps despacho as the built-in carrier for merchants without carrier accounts', async () => {
    const m = await merchant(t, 'Tienda Propia');
    const order = await placeOrder(t, m.token);
    const res = await t.call('POST', `/v1/orders/${order.id}/ship`, { token: m.token, body: shipBody([{ order_item_id: order.items[0].id, quantity: 1 }]) });
    expect(res.status).toBe(201);
    expect(res.body.data.tracking_number).toMatch(/^DSP\d{11}$/);
  });
});
