import type { EntityItem } from 'electrodb';
import { defineEntity, service, key, required, optional, keyless } from '../entity';

/** Which imported tariff version is in force (the switch of an import, see tariff.ts). */
export const tariffMetas = defineEntity({
  model: { entity: 'tariffMeta', version: '1', service },
  attributes: {
    ...required({ currentVersion: 'string', rows: 'number', importedAt: 'string' }),
    /** The token that imported it: `<id> <name>`. */
    ...optional({ importedBy: 'string', previousVersion: 'string' }),
  },
  indexes: {
    current: { pk: key('pk', 'TARIFF', keyless), sk: key('sk', 'META', keyless) },
  },
} as const);

/** An item of the entity as a read answers it. */
export type TariffMetaItem = EntityItem<ReturnType<typeof tariffMetas>>;
