import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { getEvery, isConditionalFailure, type TransactPut, type TransactUpdate } from './entity';
import { documents } from './documents/document';
import { documentClient } from '../dynamo';
import type { DocumentRecord, DocumentState } from '#core/documents/model';
import { packsOfDocument } from '#core/search/index-terms';
import { putSearchPacks } from './search';

type Patch = Partial<Omit<DocumentRecord, 'id' | 'accountId' | 'rootId' | 'version' | 'blobKey' | 'createdAt'>>;

export async function getDocument(id: number): Promise<DocumentRecord | undefined> {
  const res = await documents().get({ id }).go({ consistent: true });
  return res.data ?? undefined;
}

/**
 * The search's index items of a document (its file name's and title's words), written before the
 * document: a write that dies between the two leaves index items the search drops, as it reads
 * the documents it finds.
 */
function indexDocument(record: DocumentRecord): Promise<void> {
  const title = typeof record.metadata?.title === 'string' ? record.metadata.title : undefined;
  return putSearchPacks(packsOfDocument({ ...record, ...(title ? { title } : {}) }));
}

export async function putDocument(record: DocumentRecord): Promise<void> {
  await indexDocument(record);
  await documents().create(record).go();
}

/** Documents by id, those that exist (the search's hits). */
export async function getDocuments(ids: readonly number[]): Promise<DocumentRecord[]> {
  if (!ids.length) return [];
  return getEvery(
    ids.map((id) => ({ id })),
    (ks) => documents().get(ks).go({ concurrency: 4 }),
  );
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
  await indexDocument(next);
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
