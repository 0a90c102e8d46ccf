/**
 * The orders half of `npm run cli -- demo`: a merchant's warehouse and tracked stock, web-store
 * orders walked through every status (shipped with labels, fulfilled outside, delivered,
 * cancelled), and, when the API is this machine's twin, marketplace orders imported by a real
 * sync from local fake Shopify, Mercado Libre and Amazon servers (twin/fake-marketplaces.ts),
 * which are disconnected again afterwards so the schedule does not call servers that are gone.
 * Everything goes through the public API, as a client would.
 */
type Call = (method: string, path: string, token: string, body?: unknown) => Promise<any>;

const customers = [
  ['Lucía Fernández', 'Córdoba', 'X5000'],
  ['Mateo Gómez', 'Rosario', 'S2000'],
  ['Sofía Núñez', 'Mendoza', 'M5500'],
  ['Benjamín Díaz', 'La Plata', 'B1900'],
  ['Valentina López', 'Salta', 'A4400'],
  ['Thiago Martínez', 'Mar del Plata', 'B7600'],
  ['Camila Romero', 'Neuquén', 'Q8300'],
  ['Santiago Pérez', 'Tucumán', 'T4000'],
  ['Martina García', 'Buenos Aires', 'C1043'],
  ['Joaquín Sosa', 'Bahía Blanca', 'B8000'],
] as const;

const catalog = [
  { sku: 'MUG-CER-01', name: 'Taza de cerámica', price: 12.5, weight: 0.4 },
  { sku: 'TEE-ALG-M', name: 'Remera de algodón M', price: 18, weight: 0.2 },
  { sku: 'EARB-BT5', name: 'Auriculares Bluetooth', price: 39.9, weight: 0.15 },
  { sku: 'BOOK-ES-7', name: 'Libro de cocina', price: 24, weight: 0.8 },
] as const;

export async function seedOrderDemo(call: Call, token: string, apiUrl: string): Promise<string[]> {
  await call('PUT', '/v1/warehouses/1', token, { name: 'Depósito Miami', address1: '2100 NW 42nd Ave', city: 'Miami', state: 'FL', postal_code: '33142', country: 'US' });
  await call('PUT', '/v1/inventory/MUG-CER-01', token, { name: 'Taza de cerámica', stock: 6, threshold: 5, warehouse_id: 1 });
  await call('PUT', '/v1/inventory/EARB-BT5', token, { name: 'Auriculares Bluetooth', stock: 40, threshold: 10, warehouse_id: 1 });

  const orders: any[] = [];
  for (const [i, [name, city, zip]] of customers.entries()) {
    const items = [catalog[i % 4], catalog[(i + 1) % 4]].map((c, k) => ({ ...c, quantity: 1 + ((i + k) % 2) }));
    orders.push(
      (
        await call('POST', '/v1/orders', token, {
          customer: { name, email: `cliente${i + 1}@example.com` },
          shipping_address: { name, address1: `Calle ${100 + i}`, city, state: city, postal_code: zip, country: 'AR' },
          items,
          currency: 'USD',
          shipping: 9.9,
          financial_status: i % 4 === 3 ? 'pending' : 'paid',
        })
      ).data,
    );
  }
  const ship = (o: any, lines: { order_item_id: number; quantity: number }[], service = 'standard') =>
    call('POST', `/v1/orders/${o.id}/ship`, token, { carrier: 'despacho', service, packages: [{ weight: 1.1, length: 30, width: 20, height: 12, items: lines }] });
  const all = (o: any) => o.items.map((it: any) => ({ order_item_id: it.id, quantity: it.quantity }));

  const shipped = (await ship(orders[0], all(orders[0]), 'express')).data;
  const delivered = (await ship(orders[1], all(orders[1]))).data;
  await call('POST', '/v1/shipping/tracking-updates', token, { tracking_number: delivered.tracking_number, status: 'delivered' });
  await ship(orders[2], [{ order_item_id: orders[2].items[0].id, quantity: 1 }]);
  await call('POST', `/v1/orders/${orders[4].id}/fulfill`, token, { tracking_number: '1Z999AA10123456784', carrier: 'ups' });
  await call('POST', `/v1/orders/${orders[5].id}/cancel`, token, { reason: 'Customer changed their mind' });
  await call('PUT', `/v1/orders/${orders[6].id}`, token, { notes: 'Gift wrap, please.' });

  const lines = [
    `Orders: ${orders.length} web orders; ${orders[0].order_number} shipped (label ${shipped.label_url}), ${orders[1].order_number} delivered, ${orders[2].order_number} partly shipped, ${orders[4].order_number} fulfilled outside, ${orders[5].order_number} cancelled, the rest pending or processing.`,
  ];
  lines.push(...(await marketplaceDemo(call, token, apiUrl)));
  return lines;
}

async function marketplaceDemo(call: Call, token: string, apiUrl: string): Promise<string[]> {
  if (!/^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?\//.test(apiUrl + '/')) return ['Marketplace orders: skipped (the demo marketplaces run only beside a local twin).'];
  const fakes = await import('#twin/fake-marketplaces');
  const [shopify, ml, amazon] = await Promise.all([fakes.startFakeShopify({ count: 8, seed: 11 }), fakes.startFakeMercadoLibre({ count: 10, seed: 12 }), fakes.startFakeAmazon({ count: 6, seed: 13 })]);
  try {
    await call('PUT', '/v1/orders/marketplaces/shopify', token, { base_url: shopify.baseUrl, credentials: { accessToken: shopify.token } });
    await call('PUT', '/v1/orders/marketplaces/meli', token, { base_url: ml.baseUrl, credentials: { accessToken: ml.token, sellerId: ml.sellerId } });
    await call('PUT', '/v1/orders/marketplaces/amazon', token, { base_url: amazon.baseUrl, credentials: { accessToken: amazon.token, marketplaceId: amazon.marketplaceId } });
    const sync = (await call('POST', '/v1/orders/sync', token, { since: '2020-01-01T00:00:00Z' })).data;
    let status: any;
    for (let i = 0; i < 120; i++) {
      status = (await call('GET', '/v1/orders/sync/status', token)).data.last_sync;
      if (status?.sync_id === sync.sync_id && status.status !== 'processing') break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const counts = Object.entries(status?.channels ?? {}).map(([c, r]: [string, any]) => `${c} ${r.orders_new} new`);
    return [`Marketplace orders: sync ${sync.sync_id} ${status?.status ?? 'still running'} (${counts.join(', ')}); the demo marketplaces were local fakes and are disconnected again.`];
  } finally {
    for (const c of ['shopify', 'meli', 'amazon']) await call('DELETE', `/v1/orders/marketplaces/${c}`, token).catch(() => undefined);
    await Promise.all([shopify.close(), ml.close(), amazon.close()]);
  }
}
