/**
 * The single table's key schema, declared once. The CDK (lib/data.ts), the local twin and the
 * test setup all build the table from this; entities map their key templates onto these fields.
 */
export const tableSchema = {
  partitionKey: 'pk',
  sortKey: 'sk',
  ttlAttribute: 'ttl',
  indexes: [
    { name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
    { name: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk' },
    { name: 'gsi3', partitionKey: 'gsi3pk', sortKey: 'gsi3sk' },
  ],
} as const;

export type IndexName = (typeof tableSchema.indexes)[number]['name'];
