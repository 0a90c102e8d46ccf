/**
 * Orders of one merchant in bulk, for benchmarks and tests whose point is reading them: the
 * records the sync would make (web and four marketplaces, every status, names from a seeded
 * generator), with ids allocated as the service allocates them, written with BatchWriteItem
 * (`loadOrders`), a minute apart from 2026-01-01.
 */
import { loadOrders } from '#infra/entities/orders';
import { productsFor } from '#infra/entities/products';
import { nextIds } from '#infra/entities/counters';
import { importedOrder } from '#services/orders/orders';
import type { OrderChannel } from '#core/orders/model';
import type { MarketplaceOrder, OrderStatus } from '#core/orders/marketplace';
import { prng } from './prng';

export async function seedOrders(accountId: number, orderCount: number): Promise<void> {
  const rand = prng(7);
  const names = ['María', 'Juan', 'Lucía', 'Mateo', 'Sofía', 'Benjamín', 'Valentina', 'Thiago', 'Camila', 'Santiago'];
  const surnames = ['González', 'Rodríguez', 'Gómez', 'Fernández', 'López', 'Díaz', 'Martínez', 'Pérez', 'García', 'Romero'];
  const channels: OrderChannel[] = ['web', 'meli', 'amazon', 'shopify', 'ebay'];
  const statuses: OrderStatus[] = ['pending', 'processing', 'processing', 'shipped', 'delivered', 'cancelled'];
  const start = Date.parse('2026-01-01T00:00:00Z');
  const skus = Array.from({ length: 500 }, (_, k) => ({ sku: `SKU-${k}`, name: `Producto ${k}` }));
  const products = await productsFor(accountId, skus);
  const productIds = new Map([...products].map(([sku, p]) => [sku, p.productId]));
  const itemsOf = (i: number) => Array.from({ length: 1 + (i % 3) }, (_, k) => ({ ...skus[(i * 7 + k) % 500], quantity: 1 + (k % 2), price: 5 + ((i + k) % 90) + 0.99, weight: 0.3 }));
  const firstOrder = await nextIds('order', orderCount);
  let nextItem = await nextIds('orderItem', Array.from({ length: orderCount }, (_, i) => itemsOf(i).length).reduce((a, b) => a + b, 0));
  const records = [];
  for (let i = 0; i < orderCount; i++) {
    const name = `${names[Math.floor(rand() * names.length)]} ${surnames[Math.floor(rand() * surnames.length)]}`;
    const channel = channels[i % channels.length];
    const items = itemsOf(i);
    const at = new Date(start + i * 60_000).toISOString();
    const subtotal = items.reduce((s, x) => s + Math.round(x.price * 100) * x.quantity, 0) / 100;
    const m: MarketplaceOrder = {
      channelOrderId: `${channel}-${i}`,
      orderNumber: `${channel.slice(0, 2).toUpperCase()}-${100000 + i}`,
      createdAt: at,
      updatedAt: at,
      status: statuses[i % statuses.length],
      financialStatus: 'paid',
      customer: { name, email: `c${i}@example.com`, phone: null },
      shippingAddress: { name, address1: `Calle ${i} 123`, city: 'Buenos Aires', state: 'CABA', postal_code: 'C1000', country: 'AR' },
      billingAddress: null,
      items: items.map((x, k) => ({ ...x, channelItemId: `${i}-${k}` })),
      currency: 'USD',
      totals: { subtotal, shipping: 0, tax: 0, discount: 0, total: subtotal },
    };
    records.push(importedOrder(accountId, channel, m, { id: firstOrder + i, firstItemId: nextItem, productIds, at }));
    nextItem += items.length;
  }
  for (let i = 0; i < records.length; i += 1000) await loadOrders(accountId, records.slice(i, i + 1000));
}
