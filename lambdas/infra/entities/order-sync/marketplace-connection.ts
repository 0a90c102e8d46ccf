import { CustomAttributeType, type EntityItem } from 'electrodb';
import { defineEntity, service, key, pad, required, keyless } from '../entity';
import type { FormerChannel, SyncChannel } from '#core/orders/marketplace';

/** An account's connection to a marketplace: one partition lists every connected account for the schedule. */
export const marketplaceConnections = defineEntity({
  model: { entity: 'marketplaceConnection', version: '1', service },
  attributes: {
    accountId: { type: 'number', required: true },
    /** The account id zero-padded, so the schedule's partition lists accounts in order. */
    accountKey: { type: 'string', hidden: true, watch: ['accountId'], set: (_: unknown, { accountId }: { accountId: number }) => pad(accountId) },
    /** The code the row was written under: a current one, or a former one until `migrate channel-codes`. */
    channel: { type: CustomAttributeType<SyncChannel | FormerChannel>('string'), required: true },
    ...required({ baseUrl: 'string', updatedAt: 'string' }),
  },
  indexes: {
    all: { pk: key('pk', 'MARKETPLACE_CONNECTIONS', keyless), sk: key('sk', '${accountKey}#${channel}', keyless) },
  },
} as const);

/** An item of the entity as a read answers it. */
export type MarketplaceConnectionItem = EntityItem<ReturnType<typeof marketplaceConnections>>;
