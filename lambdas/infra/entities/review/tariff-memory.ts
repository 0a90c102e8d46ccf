import type { EntityItem } from 'electrodb';
import { defineEntity, service, key, required, optional, keyless } from '../entity';

/**
 * The partner-code memory: per account, what a broker decided for a product as the partner
 * describes it (its description, name, category and declared code, normalized: `fingerprint`).
 * The pipeline's ai stage reads it before classifying, so the partner's next manifest gets the
 * broker's code for the same product. One record per (account, product), overwritten by a newer
 * decision; `META` counts them so a stage of an account without any reads one record per page.
 */
export const tariffMemories = defineEntity({
  model: { entity: 'tariffMemory', version: '1', service },
  attributes: {
    ...required({ accountId: 'number', fingerprint: 'string', ncmCode: 'string', dutyRate: 'number', decidedBy: 'string', decidedAt: 'string' }),
    ...optional({ description: 'string', hsCode: 'string', batchId: 'string' }),
  },
  indexes: {
    byFingerprint: { pk: key('pk', 'ACCOUNT#${accountId}#TARIFFMEMORY', keyless), sk: key('sk', 'CODE#${fingerprint}', keyless) },
  },
} as const);

/** An item of the entity as a read answers it. */
export type TariffMemoryItem = EntityItem<ReturnType<typeof tariffMemories>>;
