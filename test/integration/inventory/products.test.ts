import { describe, expect, it } from 'vitest';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { useTwin } from '#support/twin';
import { documentClient } from '#infra/dynamo';
import { config } from '#shared/config';

const t = useTwin();

describe('products through their entity', () => {
  it('lists, updates and stocks a product stored before the entity, by hand, under the same keys', async () => {
    const m = await t.account('Productos Antiguos');
    const address = { name: 'Depósito Central', address1: 'Calle 1', city: 'Córdoba', state: 'Córdoba', postal_code: 'X5000', country: 'AR' };
    expect((await t.call('PUT', '/v1/warehouses/1', { token: m.token, body: address })).status).toBe(200);
    const key = { pk: `PRODUCT#${m.accountId}#OLD-1`, sk: 'PRODUCT' };
    // The row as the hand-written module wrote it: its keys, its index keys and fields, no ElectroDB identifiers.
    await documentClient().send(
      new PutCommand({
        TableName: config.tableName(),
        Item: { ...key, gsi1pk: `ACCOUNT#${m.accountId}#PRODUCTS`, gsi1sk: 'OLD-1', accountId: m.accountId, productId: 987, sku: 'OLD-1', name: 'Mate', stock: 9, threshold: 2, warehouseId: 1, warehouseName: 'Depósito Central' },
      }),
    );
    const listed = (await t.call('GET', '/v1/inventory', { token: m.token })).body.data.products;
    expect(listed).toEqual([expect.objectContaining({ product_id: 987, sku: 'OLD-1', current_stock: 9, threshold: 2, warehouse_id: 1 })]);

    const set = await t.call('PUT', '/v1/inventory/OLD-1', { token: m.token, body: { stock: 1, threshold: 2, warehouse_id: 1 } });
    expect(set.status).toBe(200);
    expect(set.body.data).toMatchObject({ product_id: 987, sku: 'OLD-1', name: 'Mate', current_stock: 1, low_stock: true });
    const stored = (await documentClient().send(new GetCommand({ TableName: config.tableName(), Key: key }))).Item!;
    expect(stored).toMatchObject({ ...key, gsi1pk: `ACCOUNT#${m.accountId}#PRODUCTS`, gsi1sk: 'OLD-1', productId: 987, stock: 1, below: true });
  });
});
