import type { TestTwin } from './twin';

/** A web-store order body; `over` replaces fields. */
export function webOrder(over: Record<string, unknown> = {}) {
  return {
    customer: { name: 'María Pérez', email: 'maria@example.com', phone: '+54 11 5555 0000' },
    shipping_address: { name: 'María Pérez', address1: 'Av. Corrientes 1234', city: 'Buenos Aires', state: 'CABA', postal_code: 'C1043', country: 'ar' },
    items: [
      { sku: 'MUG-01', name: 'Taza de cerámica', quantity: 2, price: 10.1, weight: 0.4 },
      { sku: 'TEE-02', name: 'Remera algodón', quantity: 1, price: 0.2, weight: 0.2 },
    ],
    currency: 'usd',
    shipping: 5,
    tax: 1.05,
    discount: 0.1,
    financial_status: 'paid',
    ...over,
  };
}

export const warehouse = { name: 'Depósito Central', address1: 'Calle Falsa 123', city: 'Miami', state: 'FL', postal_code: '33101', country: 'US' };

/** A merchant account with every scope a partner may hold and a ship-from warehouse 1. */
export async function merchant(t: TestTwin, name: string) {
  const acc = await t.account(name);
  const w = await t.call('PUT', '/v1/warehouses/1', { token: acc.token, body: warehouse });
  if (w.status !== 200) throw new Error(`warehouse: ${w.text}`);
  return acc;
}

export async function placeOrder(t: TestTwin, token: string, over: Record<string, unknown> = {}) {
  const res = await t.call('POST', '/v1/orders', { token, body: webOrder(over) });
  if (res.status !== 201) throw new Error(`order: ${res.text}`);
  return res.body.data;
}

export const shipBody = (lines: { order_item_id: number; quantity: number }[], over: Record<string, unknown> = {}) => ({
  carrier: 'despacho',
  service: 'standard',
  packages: [{ weight: 1.2, length: 30, width: 20, height: 10, items: lines }],
  ...over,
});

/** Carrier accounts the fake carriers (twin/fake-carriers.ts) accept, one per external carrier. */
export const carrierAccounts = {
  fedex: { client_id: 'l7fedexkey0001', client_secret: 'fedex-secret-value-42', account_number: '740561073' },
  ups: { client_id: 'ups-client-0001', client_secret: 'ups-secret-value-7', account_number: 'A1B2C3' },
  dhl: { client_id: 'dhl-user-0001', client_secret: 'dhl-password-9', account_number: '123456789' },
  usps: { client_id: 'usps-client', client_secret: 'usps-secret-value-9', account_number: '1000012345', crid: '56982563', mailer_id: '899999999' },
} as const;
