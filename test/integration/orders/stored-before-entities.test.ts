import { describe, expect, it } from 'vitest';
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { useTwin } from '#support/twin';
import { merchant, placeOrder, shipBody, webOrder } from '#support/orders';
import { documentClient } from '#infra/dynamo';
import { config } from '#shared/config';

const t = useTwin();

const get = async (key: { pk: string; sk: string }) => (await documentClient().send(new GetCommand({ TableName: config.tableName(), Key: key }))).Item!;

/** Puts the item back as the hand-written module wrote it: its keys and fields, no ElectroDB identifiers or added attributes. */
async function asWrittenByHand(item: Record<string, unknown>, drop: string[] = [], add: Record<string, unknown> = {}) {
  const copy: Record<string, unknown> = { ...item, ...add };
  for (const name of ['__edb_e__', '__edb_v__', 'idKey', ...drop]) delete copy[name];
  await documentClient().send(new PutCommand({ TableName: config.tableName(), Item: copy }));
}

describe('orders through their entities', () => {
  it('reads, lists, updates, ships and tracks an order whose items were stored before the entities, by hand, under the same keys', async () => {
    const m = await merchant(t, 'Tienda Antigua');
    const order = await placeOrder(t, m.token, { order_number: 'OLD-7' });
    const acct = m.accountId;
    const row = (await documentClient().send(new QueryCommand({ TableName: config.tableName(), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': `ORDERIDX#${acct}` } }))).Items!;
    expect(row).toHaveLength(1);
    await asWrittenByHand(await get({ pk: `ORDER#${order.id}`, sk: 'ORDER' }), [], { kind: 'order' });
    await asWrittenByHand(row[0], ['accountId']);
    await asWrittenByHand(await get({ pk: `ORDERMETA#${acct}`, sk: 'META' }), ['accountId']);
    await asWrittenByHand(await get({ pk: `ORDERNO#${acct}#old-7`, sk: 'ORDERNO' }), ['accountId', 'orderNumber']);

    const detail = await t.call('GET', `/v1/orders/${order.id}`, { token: m.token });
    expect(detail.status).toBe(200);
    expect(detail.body.data).toMatchObject({ id: order.id, order_number: 'OLD-7', channel: 'web', status: 'processing' });
    const list = await t.call('GET', '/v1/orders?search=old-7', { token: m.token });
    expect(list.body.data.orders.map((o: { id: number }) => o.id)).toEqual([order.id]);
    expect((await t.call('POST', '/v1/orders', { token: m.token, body: webOrder({ order_number: 'old-7' }) })).status).toBe(409);

    const noted = await t.call('PUT', `/v1/orders/${order.id}`, { token: m.token, body: { notes: 'leave at the door' } });
    expect(noted.status).toBe(200);
    expect(noted.body.data.notes).toBe('leave at the door');

    const shipped = await t.call('POST', `/v1/orders/${order.id}/ship`, { token: m.token, body: shipBody(order.items.map((i: { id: number; quantity: number }) => ({ order_item_id: i.id, quantity: i.quantity }))) });
    expect(shipped.status).toBe(201);
    const { shipment_id: shipmentId, tracking_number: tracking } = shipped.body.data;
    await asWrittenByHand(await get({ pk: `SHIPMENT#${shipmentId}`, sk: 'SHIPMENT' }));
    await asWrittenByHand(await get({ pk: `TRACKING#${tracking.toUpperCase()}`, sk: 'TRACKING' }), ['trackingNumber']);
    const delivered = await t.call('POST', '/v1/shipping/tracking-updates', { token: m.token, body: { tracking_number: tracking.toLowerCase(), status: 'delivered' } });
    expect(delivered.status).toBe(200);
    expect((await t.call('GET', `/v1/orders/${order.id}`, { token: m.token })).body.data.status).toBe('delivered');
    const label = await t.call('GET', `/v1/shipping/shipments/${shipmentId}/label`, { token: m.token });
    expect(label.status).toBe(200);
  });
});
