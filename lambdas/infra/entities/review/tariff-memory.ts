import type { EntityItem } from 'electrodb';
import { defineEntity, service, key, required, optional, keyless } from '../entity';

/**
 * The partner-code memory: per account, what a broker decided (confirmed or corrected) for a
 * product as the partner names it: `fingerprint` is one of the product's keys (its product link or
 * its normalized description; services/review/fingerprint.ts), `match` says which. The pipeline's
 * ai stage reads it before classifying, so the partner's later products with the same link or
 * description get the broker's code, citing the decision (`batchId`, `awb`, `revision`). One
 * record per (account, key), overwritten by a newer decision; `META` counts them so a stage of an
 * account without any reads one record per page.
 */
export const tariffMemories = defineEntity({
  model: { entity: 'tariffMemory', version: '1', service },
  attributes: {
    ...required({ accountId: 'number', fingerprint: 'string', ncmCode: 'string', dutyRate: 'number', decidedBy: 'string', decidedAt: 'string' }),
    ...optional({ description: 'string', hsCode: 'string', batchId: 'string', awb: 'string', revision: 'number', match: 'string', productLink: 'string' }),
  },
  indexes: {
    byFingerprint: { pk: key('pk', 'ACCOUNT#${accountId}#TARIFFMEMORY', keyless), sk: key('sk', 'CODE#${fingerprint}', keyless) },
  },
} as const);

/** An item of the entity as a read answers it. */
export type TariffMemoryItem = EntityItem<ReturnType<typeof tariffMemories>>;
