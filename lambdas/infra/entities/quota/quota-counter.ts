import type { EntityItem } from 'electrodb';
import { defineEntity, key, required, optional, keyless, service } from '../entity';

/** The model's name and version: a raw Put of a counter (quota.ts `reservationWrite`) writes them as ElectroDB would. */
export const counterModel = { entity: 'quotaCounter', version: '1', service } as const;

export const quotaCounters = defineEntity({
  model: counterModel,
  attributes: {
    ...required({ holder: 'string', year: 'number' }),
    ...optional({ used: 'number' }),
    /** The AWBs holding the year's slots: what makes a reservation count once. */
    awbs: { type: 'set', items: 'string' },
    updatedAt: { type: 'string' },
  },
  indexes: {
    byHolderYear: { pk: key('pk', 'QUOTA#${holder}#${year}', keyless), sk: key('sk', 'COUNTER', keyless) },
  },
} as const);

/** An item of the entity as a read answers it. */
export type QuotaCounterItem = EntityItem<ReturnType<typeof quotaCounters>>;
