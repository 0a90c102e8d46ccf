import type { EntityItem } from 'electrodb';
import { defineEntity, service, key, required, optional, keyless } from '../entity';
import { formerChannels, syncChannels } from '#core/orders/marketplace';

/** Every channel code a stored record may name: the current ones and the former ones (a rename). */
const channelCodes = [...syncChannels, ...formerChannels];

/** One run of an account's marketplace sync (newest last in the partition). */
export const syncRuns = defineEntity({
  model: { entity: 'syncRun', version: '1', service },
  attributes: {
    ...required({ accountId: 'number', syncId: 'string', startedAt: 'string', trigger: 'string', status: 'string' }),
    channels: { type: 'list', items: { type: 'string' }, required: true },
    /** An ISO time, or null: nullable fields are `any` (ElectroDB's string refuses null). */
    ...optional({ since: 'any', completedAt: 'any' }),
    /** One result per channel code, each written on its own (`saveSyncResult`). */
    results: { type: 'map', properties: Object.fromEntries(channelCodes.map((c) => [c, { type: 'any' } as const])) as Record<string, { type: 'any' }> },
  },
  indexes: {
    byAccount: { pk: key('pk', 'SYNC#${accountId}', keyless), sk: key('sk', 'RUN#${startedAt}#${syncId}', keyless) },
  },
} as const);

/** An item of the entity as a read answers it. */
export type SyncRunItem = EntityItem<ReturnType<typeof syncRuns>>;
