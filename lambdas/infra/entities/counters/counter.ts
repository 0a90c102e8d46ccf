import type { EntityItem } from 'electrodb';
import { defineEntity, service, key } from '../entity';

/** A named sequence of integer ids (`nextId`): one item per sequence, moved by an atomic ADD. */
export const counters = defineEntity({
  model: { entity: 'counter', version: '1', service },
  attributes: {
    name: { type: 'string', required: true },
    value: { type: 'number', default: 0 },
  },
  indexes: {
    byName: { pk: key('pk', 'COUNTER#${name}'), sk: key('sk', 'COUNTER') },
  },
} as const);

/** An item of the entity as a read answers it. */
export type CounterItem = EntityItem<ReturnType<typeof counters>>;
