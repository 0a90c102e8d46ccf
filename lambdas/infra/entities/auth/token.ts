import { CustomAttributeType, type EntityItem } from 'electrodb';
import { defineEntity, service, key, required, optional } from '../entity';
import type { TokenRecord } from '#core/auth/accounts';

/** An API token, by the hash of its secret (the secret itself is never stored). */
export const tokens = defineEntity({
  model: { entity: 'token', version: '1', service },
  attributes: {
    ...required({ id: 'number', tokenHash: 'string', accountId: 'number', name: 'string', role: ['admin', 'broker', 'partner'] }),
    ...optional({ email: 'string' }),
    scopes: { type: 'list', items: { type: CustomAttributeType<TokenRecord['scopes'][number]>('string') }, required: true, default: () => [] },
    ...required({ createdAt: 'string' }),
    ...optional({ lastUsedAt: 'string', revokedAt: 'string', expiresAt: 'string', createdByTokenId: 'number', scopesVersion: 'number' }),
  },
  indexes: {
    byHash: { pk: key('pk', 'TOKEN#${tokenHash}'), sk: key('sk', 'TOKEN') },
    byId: { index: 'gsi1', pk: key('gsi1pk', 'TOKENID#${id}'), sk: key('gsi1sk', 'TOKEN') },
    byAccount: { index: 'gsi2', pk: key('gsi2pk', 'ACCOUNT#${accountId}#TOKENS'), sk: key('gsi2sk', 'TOKEN#${createdAt}') },
    all: { index: 'gsi3', pk: key('gsi3pk', 'TOKENS'), sk: key('gsi3sk', 'TOKEN#${createdAt}') },
  },
} as const);

/** An item of the entity as a read answers it. */
export type TokenItem = EntityItem<ReturnType<typeof tokens>>;
