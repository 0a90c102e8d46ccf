import { canAccess, seesAllAccounts, type Principal } from '#core/auth/principal';
import type { DocumentRecord } from '#core/documents/model';
import { getDocument, listDocuments, listVersions } from '#infra/entities/documents';
import { NotFound } from '#core/errors';

/** The documents the caller may see: every account's for those who see all, else the caller's own. */
export function documentsVisibleTo(principal: Principal): Promise<DocumentRecord[]> {
  return listDocuments(seesAllAccounts(principal) ? undefined : principal.accountId);
}

/** Every version of the caller's document, oldest first. */
export async function versionsOf(principal: Principal, id: number): Promise<DocumentRecord[]> {
  const doc = await findDocument(principal, id);
  return listVersions(doc.rootId);
}

/** A document the caller may see: another account's answers exactly like a missing one. */
export async function findDocument(principal: Principal, id: number): Promise<DocumentRecord> {
  const doc = await getDocument(id);
  if (!doc || !canAccess(principal, doc.accountId)) throw new NotFound('Document not found.');
  return doc;
}
