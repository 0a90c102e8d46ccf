/**
 * The reference module of the init guard (scripts/init-guard.ts): what every function that reads
 * the table carries and cannot shed, the DynamoDB document client and ElectroDB with one entity.
 * Each function's init is measured as a ratio to this bundle's, imported in a fresh process just
 * before it, so the machine's speed and load cancel out. Do not change it without rewriting
 * scripts/init-budgets.json (`npm run bench:cold -- --write-budgets`): every ratio is relative to it.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { Entity } from 'electrodb';

let client: DynamoDBDocumentClient | undefined;

const probe = new Entity(
  {
    model: { entity: 'probe', version: '1', service: 'reference' },
    attributes: { id: { type: 'string', required: true } },
    indexes: { byId: { pk: { field: 'pk', composite: ['id'] }, sk: { field: 'sk', composite: [] } } },
  },
  { table: 'reference' },
);

export async function handler(event: { id: string }): Promise<unknown> {
  client ??= DynamoDBDocumentClient.from(new DynamoDBClient({}));
  return client.send(new GetCommand(probe.get({ id: event.id }).params()));
}
