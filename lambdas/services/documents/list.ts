import { seesAllAccounts, type Principal } from '../../core/auth/principal';
import type { DocumentRecord } from '../../core/documents/model';
import { listDocuments, listVersions } from '../../infra/entities/documents';
import { findDocument } from './documents';

/** The documents the caller may see: every account's for those who see all, else the caller's own. */
export function documentsVisibleTo(principal: Principal): Promise<DocumentRecord[]> {
  return listDocuments(seesAllAccounts(principal) ? undefined : principal.accountId);
}

/** Every version of the caller's document, oldest first. */
export async function versionsOf(principal: Principal, id: number): Promise<DocumentRecord[]> {
  const doc = await findDocument(principal, id);
  return listVersions(doc.rootId);
}
