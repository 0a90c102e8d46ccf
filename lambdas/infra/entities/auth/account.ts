import type { EntityItem } from 'electrodb';
import { defineEntity, service, key, pad, required, optional } from '../entity';
import { accountKinds } from '#core/auth/accounts';

/** An account: a partner, a broker or the operator; tokens and everything else belong to one. */
export const accounts = defineEntity({
  model: { entity: 'account', version: '1', service },
  attributes: {
    id: { type: 'number', required: true },
    idKey: { type: 'string', hidden: true, watch: ['id'], set: (_: unknown, { id }: { id: number }) => pad(id) },
    ...required({ name: 'string', kind: accountKinds, createdAt: 'string', updatedAt: 'string' }),
    ...optional({ sealedSigningSecret: 'string', sharesTariffDecisions: 'boolean', tariffConsentAt: 'string', tariffConsentReference: 'string' }),
    // Items written before issue 31 hold the secret in clear, under `manifestSigningSecret`.
    legacySigningSecret: { type: 'string', field: 'manifestSigningSecret' },
  },
  indexes: {
    byId: { pk: key('pk', 'ACCOUNT#${id}'), sk: key('sk', 'ACCOUNT') },
    all: { index: 'gsi1', pk: key('gsi1pk', 'ACCOUNTS'), sk: key('gsi1sk', 'ACCOUNT#${idKey}') },
  },
} as const);

/** An item of the entity as a read answers it. */
export type AccountItem = EntityItem<ReturnType<typeof accounts>>;
