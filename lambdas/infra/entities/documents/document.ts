import { CustomAttributeType, type EntityItem } from 'electrodb';
import { defineEntity, service, key, pad, required, optional } from '../entity';
import { documentStates, documentTypes } from '#core/documents/model';

/** Who uploaded, validated, approved or rejected a document (core/documents `Actor`). */
const actor = { type: 'map', properties: { id: { type: 'number', required: true }, name: { type: 'string', required: true }, email: { type: 'string' } } } as const;

/** A transport document, one item per version (`rootId` ties the versions together). */
export const documents = defineEntity({
  model: { entity: 'document', version: '1', service },
  attributes: {
    id: { type: 'number', required: true },
    idKey: { type: 'string', hidden: true, watch: ['id'], set: (_: unknown, { id }: { id: number }) => pad(id) },
    ...required({ accountId: 'number', rootId: 'number', version: 'number' }),
    versionKey: { type: 'string', hidden: true, watch: ['version'], set: (_: unknown, { version }: { version: number }) => pad(version) },
    ...required({ documentType: documentTypes, state: documentStates, fileName: 'string', fileSize: 'number' }),
    ...required({ mimeType: 'string', checksum: 'string', blobKey: 'string' }),
    ...optional({ manifestId: 'string', awbNumber: 'string' }),
    metadata: { type: CustomAttributeType<Record<string, unknown>>('any') },
    uploader: actor,
    validator: actor,
    approver: actor,
    rejecter: actor,
    ...required({ createdAt: 'string', updatedAt: 'string' }),
    ...optional({ validationNotes: 'string', approvalNotes: 'string', validatedAt: 'string', approvedAt: 'string' }),
    ...optional({ rejectionReason: 'string', rejectedAt: 'string', supersededBy: 'number', supersedeReason: 'string' }),
    ...optional({ supersededAt: 'string' }),
  },
  indexes: {
    byId: { pk: key('pk', 'DOC#${id}'), sk: key('sk', 'DOC') },
    byAccount: { index: 'gsi1', pk: key('gsi1pk', 'ACCOUNT#${accountId}#DOCS'), sk: key('gsi1sk', 'DOC#${idKey}') },
    all: { index: 'gsi2', pk: key('gsi2pk', 'DOCS'), sk: key('gsi2sk', 'DOC#${idKey}') },
    versions: { index: 'gsi3', pk: key('gsi3pk', 'DOCROOT#${rootId}'), sk: key('gsi3sk', 'V#${versionKey}') },
  },
} as const);

/** An item of the entity as a read answers it. */
export type DocumentItem = EntityItem<ReturnType<typeof documents>>;
