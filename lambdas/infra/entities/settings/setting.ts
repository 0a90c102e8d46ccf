import type { EntityItem } from 'electrodb';
import { defineEntity, service, key, required } from '../entity';

/** Small service-wide facts that must be decided once (e.g. which account is the operator's). */
export const settings = defineEntity({
  model: { entity: 'setting', version: '1', service },
  attributes: {
    ...required({ name: 'string', value: 'string' }),
  },
  indexes: {
    byName: { pk: key('pk', 'SETTING#${name}'), sk: key('sk', 'SETTING') },
  },
} as const);

/** An item of the entity as a read answers it. */
export type SettingItem = EntityItem<ReturnType<typeof settings>>;
