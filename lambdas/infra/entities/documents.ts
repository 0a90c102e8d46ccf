import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionalFailure, type TransactPut, type TransactUpdate } from './entity';
import { documents } from './documents/document';
import { documentClient } from '../dynamo';
import type { DocumentRecord, DocumentState } from '#core/documents/model';

type Patch = Partial<Omit<DocumentRecord, 'id' | 'accountId' | 'rootId' | 'version' | 'blobKey' | 'createdAt'>>;

export async function getDocument(id: number): Promise<DocumentRecord | undefined> {
  const res = await documents().get({ id }).go({ consistent: true });
  return res.data ?? undefined;
}

export async function putDocument(record: DocumentRecord): Promise<void> {
  await documents().create(record).go();
}

/** Every document of one account, or of all accounts (brokers), newest first. */
export async function listDocuments(accountId?: number): Promise<DocumentRecord[]> {
  const query = accountId === undefined ? documents().query.all({}) : documents().query.byAccount({ accountId });
  const res = await query.go({ pages: 'all', order: 'desc' });
  return res.data;
}

/** Every version of a document, oldest first. */
export async function listVersions(rootId: number): Promise<DocumentRecord[]> {
  const res = await documents().query.versions({ rootId }).go({ pages: 'all' });
  return res.data;
}

/**
 * Moves a document from the state it was read in to another, in one conditional write: when two
 * callers race, exactly one wins and the other learns the state changed (returns false).
 */
export async function transition(id: number, from: DocumentState, patch: Patch): Promise<DocumentRecord | false> {
  try {
    const res = await documents()
      .patch({ id })
      .set(patch)
      .where(({ state }, { eq }) => eq(state, from))
      .go({ response: 'all_new' });
    return res.data;
  } catch (err) {
    if (isConditionalFailure(err)) return false;
    throw err;
  }
}

/** Supersede: the original leaves `from` for superseded and the new version appears, or neither. */
export async function supersedeWith(original: DocumentRecord, from: DocumentState, patch: Patch, next: DocumentRecord): Promise<boolean> {
  const update = documents()
    .patch({ id: original.id })
    .set(patch)
    .where(({ state }, { eq }) => eq(state, from))
    .params<TransactUpdate>();
  const put = documents().create(next).params<TransactPut>();
  try {
    await documentClient().send(new TransactWriteCommand({ TransactItems: [{ Update: update }, { Put: put }] }));
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
