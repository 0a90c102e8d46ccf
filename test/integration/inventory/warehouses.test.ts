import { describe, expect, it } from 'vitest';
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { useTwin } from '#support/twin';
import { documentClient } from '#infra/dynamo';
import { config } from '#shared/config';

const t = useTwin();

const address = { name: 'Depósito Norte', address1: 'Av. Siempre Viva 742', city: 'Rosario', state: 'Santa Fe', postal_code: 'S2000', country: 'AR' };

describe('warehouses through their entity', () => {
  it('reads and updates a warehouse stored before the entity, by hand, under the same keys', async () => {
    const m = await t.account('Depósitos Antiguos');
    const key = { pk: `WAREHOUSE#${m.accountId}`, sk: 'W#000000000012' };
    // The row as the hand-written module wrote it: keys and fields, no ElectroDB identifiers.
    await documentClient().send(new PutCommand({ TableName: config.tableName(), Item: { ...key, accountId: m.accountId, id: 12, ...address, updatedAt: '2026-01-02T03:04:05.000Z' } }));

    const listed = await t.call('GET', '/v1/warehouses', { token: m.token });
    expect(listed.status).toBe(200);
    expect(listed.body.data.warehouses).toEqual([{ id: 12, ...address, updated_at: '2026-01-02T03:04:05.000Z' }]);

    const saved = await t.call('PUT', '/v1/warehouses/12', { token: m.token, body: { ...address, city: 'Funes' } });
    expect(saved.status).toBe(200);
    const stored = (await documentClient().send(new GetCommand({ TableName: config.tableName(), Key: key }))).Item!;
    expect(stored).toMatchObject({ ...key, accountId: m.accountId, id: 12, city: 'Funes' });
    const rows = (await documentClient().send(new QueryCommand({ TableName: config.tableName(), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': key.pk } }))).Items!;
    expect(rows).toHaveLength(1);
  });

  it('lists an account\'s warehouses in id order, 2 before 10, and no other account\'s', async () => {
    const a = await t.account('Depósitos A');
    const b = await t.account('Depósitos B');
    for (const id of [10, 2]) expect((await t.call('PUT', `/v1/warehouses/${id}`, { token: a.token, body: { ...address, name: `Depósito ${id}` } })).status).toBe(200);
    expect((await t.call('PUT', '/v1/warehouses/1', { token: b.token, body: address })).status).toBe(200);
    const listed = await t.call('GET', '/v1/warehouses', { token: a.token });
    expect(listed.body.data.warehouses.map((w: { id: number }) => w.id)).toEqual([2, 10]);
  });
});
