import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { defineEntity, isConditionalFailure, pad, service, key, required, optional } from './entity';
import { documentClient } from '../dynamo';
import type { DocumentRecord, DocumentState } from '../../core/documents/model';
import { documentStates, documentTypes } from '../../core/documents/model';

const actor = { type: 'map', properties: { id: { type: 'number' }, name: { type: 'string' }, email: { type: 'string' } } } as const;

const documents = defineEntity({
  model: { entity: 'document', version: '1', service },
  attributes: {
    id: { type: 'number', required: true },
    idKey: { type: 'string', hidden: true, watch: ['id'], set: (_: unknown, { id }: { id: number }) => pad(id) },
    ...required({ accountId: 'number', rootId: 'number', version: 'number' }),
    versionKey: { type: 'string', hidden: true, watch: ['version'], set: (_: unknown, { version }: { version: number }) => pad(version) },
    ...required({ documentType: documentTypes, state: documentStates, fileName: 'string', fileSize: 'number' }),
    ...required({ mimeType: 'string', checksum: 'string', blobKey: 'string' }),
    ...optional({ manifestId: 'string', awbNumber: 'string', metadata: 'any' }),
    uploader: actor,
    validator: actor,
    approver: actor,
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

type Patch = Partial<Omit<DocumentRecord, 'id' | 'accountId' | 'rootId' | 'version' | 'blobKey' | 'createdAt'>>;

export async function getDocument(id: number): Promise<DocumentRecord | undefined> {
  const res = await documents().get({ id }).go({ consistent: true });
  return (res.data ?? undefined) as DocumentRecord | undefined;
}

export async function putDocument(record: DocumentRecord): Promise<void> {
  await documents().create(record as never).go();
}

/** Every document of one account, or of all accounts (brokers), newest first. */
export async function listDocuments(accountId?: number): Promise<DocumentRecord[]> {
  const query = accountId === undefined ? documents().query.all({}) : documents().query.byAccount({ accountId });
  const res = await query.go({ pages: 'all', order: 'desc' });
  return res.data as DocumentRecord[];
}

/** Every version of a document, oldest first. */
export async function listVersions(rootId: number): Promise<DocumentRecord[]> {
  const res = await documents().query.versions({ rootId }).go({ pages: 'all' });
  return res.data as DocumentRecord[];
}

/**
 * Moves a document from the state it was read in to another, in one conditional write: when two
 * callers race, exactly one wins and the other learns the state changed (returns false).
 */
export async function transition(id: number, from: DocumentState, patch: Patch): Promise<DocumentRecord | false> {
  try {
    const res = await documents()
      .patch({ id })
      .set(patch as never)
      .where(({ state }, { eq }) => eq(state, from))
      .go({ response: 'all_new' });
    return res.data as DocumentRecord;
  } catch (err) {
    if (isConditionalFailure(err)) return false;
    throw err;
  }
}

/** Supersede: the original leaves `from` for superseded and the new version appears, or neither. */
export async function supersedeWith(original: DocumentRecord, from: DocumentState, patch: Patch, next: DocumentRecord): Promise<boolean> {
  const update = documents()
    .patch({ id: original.id })
    .set(patch as never)
    .where(({ state }, { eq }) => eq(state, from))
    .params();
  const put = documents().create(next as never).params();
  try {
    await documentClient().send(new TransactWriteCommand({ TransactItems: [{ Update: update as never }, { Put: put as never }] }));
    return true;
  } catch (err) {
    if ((err as { name?: string }).name === 'TransactionCanceledException') return false;
    throw err;
  }
}

/** Removes a document only while it is still in the state it was read in. */
export async function deleteDocument(id: number, from: DocumentState): Promise<boolean> {
  try {
    await documents()
      .delete({ id })
      .where(({ state }, { eq }) => eq(state, from))
      .go();
    return true;
  } catch (err) {
    if (isConditionalFailure(err)) return false;
    throw err;
  }
}
