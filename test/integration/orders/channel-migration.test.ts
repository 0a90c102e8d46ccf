import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { adminToken, useTwin } from '#support/twin';
import { connectBeforeRename, importBeforeRename, keys, rawItem, syncBeforeRename } from '#support/former-channels';
import { run } from '#bin/cli';
import { importOrder } from '#services/orders/orders';
import { migrateChannelCodes } from '#services/orders/channel-migration';
import { marketplaceCredentials } from '#infra/marketplace-credentials';
import { documentClient } from '#infra/dynamo';
import { config } from '#shared/config';
import type { MarketplaceOrder } from '#core/orders/marketplace';
import type { OrderRecord } from '#core/orders/model';

/** Issue 17, item 2: `migrate channel-codes` rewrites data stored under mercadolibre to meli. */
const t = useTwin();

function mlOrder(id: string): MarketplaceOrder {
  return {
    channelOrderId: id,
    orderNumber: id,
    createdAt: '2026-11-01T10:00:00.000Z',
    updatedAt: '2026-11-01T10:00:00.000Z',
    status: 'processing',
    financialStatus: 'paid',
    customer: { name: 'Ana Pérez', email: 'ana@example.com', phone: null },
    shippingAddress: { name: 'Ana Pérez', address1: 'Florida 100', city: 'Córdoba', state: 'Córdoba', postal_code: 'X5000', country: 'AR' },
    billingAddress: null,
    items: [{ channelItemId: 'MLA1', sku: 'CASE-9', name: 'Funda', quantity: 1, price: 12.5, weight: 0.1 }],
    currency: 'ARS',
    totals: { subtotal: 12.5, shipping: 0, tax: 0, discount: 0, total: 12.5 },
  };
}

async function cli(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await run(argv, { env: { DESPACHO_URL: t.twin.apiUrl, DESPACHO_TOKEN: adminToken }, stdout: { write: (c: string) => (stdout += c) }, stderr: { write: (c: string) => (stderr += c) } });
  return { code, stdout, stderr };
}

const merchant = (name: string) => t.account(name);

async function expectMigrated(order: OrderRecord) {
  expect((await rawItem(keys.order(order.id)))!.channel).toBe('meli');
  expect((await rawItem(keys.indexRow(order)))!.c).toBe('meli');
  expect((await rawItem(keys.channelKey(order.accountId, 'meli', order.channelOrderId!)))!.orderId).toBe(order.id);
  expect(await rawItem(keys.channelKey(order.accountId, 'mercadolibre', order.channelOrderId!))).toBeUndefined();
}

describe('migrate channel-codes', () => {
  it('the migration converts every item stored under mercadolibre to meli, and is idempotent', async () => {
    const a = await merchant('Migra A');
    const b = await merchant('Migra B');
    const ordersA = [await importBeforeRename(a.accountId, mlOrder('1001')), await importBeforeRename(a.accountId, mlOrder('1002')), await importBeforeRename(a.accountId, mlOrder('1003'))];
    const orderB = await importBeforeRename(b.accountId, mlOrder('1001'));
    // Synced since the rename (a listed change rewrites the row): still stored under mercadolibre, so the migration finds it.
    expect(await importOrder(a.accountId, 'meli', { ...mlOrder('1003'), updatedAt: '2026-11-05T00:00:00.000Z', status: 'cancelled' })).toBe('updated');
    expect((await rawItem(keys.indexRow(ordersA[2])))).toMatchObject({ c: 'mercadolibre', s: 'cancelled' });
    expect(await importOrder(b.accountId, 'meli', mlOrder('2001'))).toBe('new');
    await connectBeforeRename(a.accountId, { baseUrl: 'https://api.mercadolibre.com', credentials: { accessToken: 'APP_USR-a', sellerId: '1' } });
    const finished = await syncBeforeRename(a.accountId);
    const running = await syncBeforeRename(b.accountId, '2025-02-01T00:00:00.000Z');
    await documentClient().send(new PutCommand({ TableName: config.tableName(), Item: { ...(await rawItem(running.key)), status: 'processing', completedAt: null } }));

    const first = await cli(['migrate', 'channel-codes']);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^Done: accounts \d+, orders 4, index rows 4, channel keys 4, connections 1, credentials 1, syncs 1\.\n$/);

    for (const o of [...ordersA, orderB]) await expectMigrated(o);
    expect(await rawItem(keys.connection(a.accountId, 'mercadolibre'))).toBeUndefined();
    expect(await rawItem(keys.connection(a.accountId, 'meli'))).toMatchObject({ channel: 'meli', baseUrl: 'https://api.mercadolibre.com', updatedAt: '2025-01-01T00:00:00.000Z' });
    const file = JSON.parse(readFileSync(join(t.dataDir, 'marketplace-credentials.json'), 'utf8'));
    expect(Object.keys(file.entries)).toEqual([`${a.accountId}/meli`]);
    expect(await marketplaceCredentials().get(a.accountId, 'meli')).toMatchObject({ channel: 'meli', credentials: { accessToken: 'APP_USR-a', sellerId: '1' } });
    expect(await rawItem(finished.key)).toMatchObject({ channels: ['meli'], results: { meli: { orders_new: 3 } } });
    expect(Object.keys((await rawItem(finished.key))!.results)).toEqual(['meli']);
    // A sync still processing is left for a later run (it reads as meli meanwhile).
    expect((await rawItem(running.key))!.channels).toEqual(['mercadolibre']);

    // The orders still read, list and re-sync as before.
    const listed = (await t.call('GET', '/v1/orders?channel=meli', { token: a.token })).body.data;
    expect(listed.orders.map((o: { channel_order_id: string }) => o.channel_order_id).sort()).toEqual(['1001', '1002', '1003']);
    expect(await importOrder(a.accountId, 'meli', mlOrder('1001'))).toBe('unchanged');
    expect((await t.call('GET', '/v1/orders?per_page=1', { token: a.token })).body.data.pagination.total).toBe(3);

    // Again: nothing left to change.
    const second = await cli(['migrate', 'channel-codes']);
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/^Done: accounts \d+, orders 0, index rows 0, channel keys 0, connections 0, credentials 0, syncs 0\.\n$/);
    for (const o of [...ordersA, orderB]) await expectMigrated(o);

    // Once that sync finished, the next run takes it too.
    await documentClient().send(new PutCommand({ TableName: config.tableName(), Item: { ...(await rawItem(running.key)), status: 'completed' } }));
    const third = await t.call('POST', '/v1/admin/migrations/channel-codes', { body: {} });
    expect(third.body.data).toMatchObject({ done: true, cursor: null, syncs: 1, orders: 0, conflicts: [] });
  });

  it('goes on from its cursor when its time runs out, converting each item once', async () => {
    const a = await merchant('Migra Cursor A');
    const b = await merchant('Migra Cursor B');
    const orders: OrderRecord[] = [];
    for (const n of [1, 2, 3, 4, 5]) orders.push(await importBeforeRename(a.accountId, mlOrder(`30${n}`)));
    orders.push(await importBeforeRename(b.accountId, mlOrder('401')));
    let cursor: string | undefined;
    let calls = 0;
    const total = { orders: 0, index_rows: 0, channel_keys: 0 };
    for (;;) {
      // No time at all: each call does one step (an account's connections and a page of 2 rows) and answers a cursor.
      const r = await migrateChannelCodes({ cursor }, { budgetMs: -1, pageSize: 2 });
      calls++;
      total.orders += r.orders;
      total.index_rows += r.index_rows;
      total.channel_keys += r.channel_keys;
      if (r.done) break;
      expect(r.cursor).toMatch(/^[A-Za-z0-9_-]+$/);
      cursor = r.cursor!;
      expect(calls).toBeLessThan(100);
    }
    expect(calls).toBeGreaterThan(3);
    expect(total).toEqual({ orders: 6, index_rows: 6, channel_keys: 6 });
    for (const o of orders) await expectMigrated(o);
  });

  it('refuses a cursor it did not answer with 422 naming cursor, and an unknown field', async () => {
    for (const body of [{ cursor: 'bm90LWEtY3Vyc29y' }, { cursor: Buffer.from(JSON.stringify({ a: 0 })).toString('base64url') }, { cursor: Buffer.from(JSON.stringify({ a: 1, s: '' })).toString('base64url') }, { cursor: 'no spaces' }]) {
      const res = await t.call('POST', '/v1/admin/migrations/channel-codes', { body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(Object.keys(res.body.errors)).toEqual(['cursor']);
    }
    const extra = await t.call('POST', '/v1/admin/migrations/channel-codes', { body: { dry_run: true } });
    expect(extra.status).toBe(422);
    const m = await merchant('Migra Nadie');
    expect((await t.call('POST', '/v1/admin/migrations/channel-codes', { token: m.token, body: {} })).status).toBe(403);
    const cliBad = await cli(['migrate', 'channel-codes', '--cursor', 'bm90LWEtY3Vyc29y']);
    expect(cliBad.code).toBe(1);
    expect(cliBad.stderr).toContain('cursor: Is not a cursor this command answered');
  });

  it('leaves an order whose meli key already names another order as it was, and reports it', async () => {
    const m = await merchant('Migra Choque');
    const legacy = await importBeforeRename(m.accountId, mlOrder('5001'));
    await documentClient().send(new PutCommand({ TableName: config.tableName(), Item: { ...keys.channelKey(m.accountId, 'meli', '5001'), orderId: 987654 } }));
    const r = (await t.call('POST', '/v1/admin/migrations/channel-codes', { body: {} })).body.data;
    expect(r.conflicts).toEqual([`account ${m.accountId}: order ${legacy.id}: meli order 5001 is already order 987654; left under mercadolibre`]);
    expect((await rawItem(keys.order(legacy.id)))!.channel).toBe('mercadolibre');
    expect((await rawItem(keys.indexRow(legacy)))!.c).toBe('mercadolibre');
    expect((await rawItem(keys.channelKey(m.accountId, 'mercadolibre', '5001')))!.orderId).toBe(legacy.id);
  });
});
