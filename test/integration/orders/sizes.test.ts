/**
 * An order's size (issue 41): one record, which DynamoDB keeps to 400 KB, and a list page of 100
 * of them, which an answer keeps to 6 MB. The largest orders the schema takes are refused with a
 * 422 naming their size, not a 500 from the table; the list form of the largest order that is
 * stored keeps a page of 100 under 3 MB.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useTwin } from '#support/twin';
import { listedItems } from '#core/orders/views';

const t = useTwin();
let merchant: { token: string };
beforeAll(async () => {
  merchant = await t.account('Large Orders');
});

/** An order with `count` items whose texts are as long as the schema allows, in a 3-byte script (each character 3 bytes in UTF-8). */
function largest(count: number) {
  const wide = (n: number) => '€'.repeat(n);
  const address = { name: wide(200), address1: wide(300), address2: wide(300), city: wide(120), state: wide(120), postal_code: '1'.repeat(20), country: 'AR', phone: wide(40) };
  return {
    customer: { name: wide(200), email: `${'a'.repeat(64)}@example.com`, phone: wide(40) },
    shipping_address: address,
    billing_address: address,
    currency: 'USD',
    notes: wide(5000),
    items: Array.from({ length: count }, (_, i) => ({ sku: `S${i}-${'k'.repeat(90)}`, name: wide(300), quantity: 100_000, price: 9_999_999.99, weight: 9999.5 })),
  };
}

describe('an order as large as the schema allows', () => {
  it('is refused with a 422 on items that says its size, and nothing is stored', async () => {
    const res = await t.call('POST', '/v1/orders', { token: merchant.token, body: largest(500) });
    expect(res.status).toBe(422);
    expect(res.body.errors.items[0]).toMatch(/^The order takes \d+ KB as stored, over the 250 KB/);
    const list = await t.call('GET', '/v1/orders', { token: merchant.token });
    expect(list.body.data.pagination.total).toBe(0);
  });

  it('lists its first items in the list form with item_count, all of them in the detail, and a page of 100 of the largest stored stays under 3 MB', async () => {
    // The most items of this size that fit the creation bound.
    let count = 500;
    let created: { status: number; body: { data: { id: number } } } | undefined;
    while (count > 0) {
      created = await t.call('POST', '/v1/orders', { token: merchant.token, body: largest(count) });
      if (created.status === 201) break;
      count -= 10;
    }
    expect(created!.status).toBe(201);
    expect(count).toBeGreaterThan(listedItems);
    const detail = await t.call('GET', `/v1/orders/${created!.body.data.id}`, { token: merchant.token });
    expect(detail.body.data.items).toHaveLength(count);

    const one = await fetch(`${t.twin.apiUrl}/v1/orders?per_page=1`, { headers: { authorization: `Bearer ${merchant.token}` } });
    const body = await one.text();
    const page = JSON.parse(body).data.orders;
    expect(page[0].items).toHaveLength(listedItems);
    expect(page[0].item_count).toBe(count);
    // A page's answer is its orders plus a fixed envelope: 100 of the largest stay under 3 MB.
    expect(Buffer.byteLength(JSON.stringify(page[0])) * 100).toBeLessThan(3 * 1024 * 1024);
  });
});
