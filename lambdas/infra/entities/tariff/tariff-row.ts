import type { EntityItem } from 'electrodb';
import { defineEntity, service, key, required, optional, keyless } from '../entity';

/** One row of an imported tariff version. */
export const tariffRows = defineEntity({
  model: { entity: 'tariffRow', version: '1', service },
  attributes: {
    ...required({ version: 'string', ncm: 'string', description: 'string', dutyRate: 'number' }),
    ...optional({ descriptionEn: 'string' }),
    keywords: { type: 'list', items: { type: 'string' } },
  },
  indexes: {
    byVersion: { pk: key('pk', 'TARIFF#${version}', keyless), sk: key('sk', 'NCM#${ncm}', keyless) },
  },
} as const);

/** An item of the entity as a read answers it. */
export type TariffRowItem = EntityItem<ReturnType<typeof tariffRows>>;
