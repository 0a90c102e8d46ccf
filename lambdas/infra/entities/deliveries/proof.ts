import type { EntityItem } from 'electrodb';
import { defineEntity, service, key, keyless, required, optional } from '../entity';

/**
 * A proof of delivery (issue 44): one item per account and AWB, created once with a conditional
 * write and never updated or deleted (nothing in the service does either). Its file lives in the
 * proofs bucket, under Object Lock. Found by AWB, manifest or flight, in the caller's account or
 * (a broker's) in every account.
 */
export const deliveryProofs = defineEntity({
  model: { entity: 'deliveryProof', version: '1', service },
  attributes: {
    ...required({ accountId: 'number', awbNumber: 'string', manifestNumber: 'string', mawbNumber: 'string', batchId: 'string' }),
    ...required({ deliveredAt: 'string', recipientName: 'string', recipientDni: 'string', recipientRelation: 'string' }),
    ...optional({ latitude: 'number', longitude: 'number', address: 'string' }),
    ...required({ fileKey: 'string', fileName: 'string', mimeType: 'string', fileSize: 'number', checksum: 'string', contentHash: 'string' }),
    source: { type: ['api', 'bulk'] as const, required: true },
    ...required({ recordedAt: 'string', retainUntil: 'string' }),
  },
  indexes: {
    byAwb: { pk: key('pk', 'ACCOUNT#${accountId}#PROOF#${awbNumber}', keyless), sk: key('sk', 'PROOF', keyless) },
    /** Every account's proof of an AWB (a broker's search); a partner's query names its account too. */
    anyAccountByAwb: { index: 'gsi1', pk: key('gsi1pk', 'PROOFAWB#${awbNumber}', keyless), sk: key('gsi1sk', '${accountId}#', keyless) },
    byManifest: { index: 'gsi2', pk: key('gsi2pk', 'PROOFMANIFEST#${manifestNumber}', keyless), sk: key('gsi2sk', '${accountId}#${awbNumber}', keyless) },
    byFlight: { index: 'gsi3', pk: key('gsi3pk', 'PROOFFLIGHT#${mawbNumber}', keyless), sk: key('gsi3sk', '${accountId}#${awbNumber}', keyless) },
  },
} as const);

export type DeliveryProofItem = EntityItem<ReturnType<typeof deliveryProofs>>;
