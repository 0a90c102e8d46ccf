import type { Principal } from '#core/auth/principal';
import { Conflict, NotFound } from '#core/errors';
import type { DocumentState } from '#core/documents/model';
import { reviewDocument } from './documents';
import { findDocument } from './list';

/**
 * The broker's review of many documents at once (issue 40): each document moves with its own
 * conditional write, as one at a time would, and its outcome is answered; nothing is all or
 * nothing, so a retry answers `already` for what the first attempt did.
 */
export type BulkAction = 'validate' | 'approve' | 'validate_and_approve' | 'reject';

export type BulkOutcome = { id: number; outcome: 'done' | 'already' | 'refused' | 'not_found'; state: DocumentState | null; message: string | null };

/** The states a document is in once the action was done (a retry finds it there). */
const doneIn: Record<BulkAction, readonly DocumentState[]> = {
  validate: ['validated', 'approved'],
  approve: ['approved'],
  validate_and_approve: ['approved'],
  reject: ['rejected'],
};

async function one(principal: Principal, id: number, action: BulkAction, text: { notes?: string; reason?: string }): Promise<BulkOutcome> {
  let doc;
  try {
    doc = await findDocument(principal, id);
  } catch (err) {
    if (err instanceof NotFound) return { id, outcome: 'not_found', state: null, message: 'Document not found.' };
    throw err;
  }
  if (doneIn[action].includes(doc.state)) return { id, outcome: 'already', state: doc.state, message: null };
  if (action === 'approve' && doc.state === 'uploaded') return { id, outcome: 'refused', state: doc.state, message: 'Validate it first, or send validate_and_approve.' };
  try {
    if (action === 'reject') doc = await reviewDocument(principal, id, { action: 'reject', reason: text.reason ?? '' });
    else {
      if (doc.state === 'uploaded') doc = await reviewDocument(principal, id, { action: 'validate', notes: text.notes });
      if (action !== 'validate') doc = await reviewDocument(principal, id, { action: 'approve', notes: text.notes });
    }
    return { id, outcome: 'done', state: doc.state, message: null };
  } catch (err) {
    if (err instanceof Conflict) return { id, outcome: 'refused', state: doc.state, message: err.message };
    throw err;
  }
}

/** POST /v1/transport/documents/review: the action on each document, in the order sent. */
export async function bulkReview(principal: Principal, action: BulkAction, ids: readonly number[], text: { notes?: string; reason?: string }) {
  const results: BulkOutcome[] = [];
  // One after another: each document's events in order, and no burst on the table's partition.
  for (const id of ids) results.push(await one(principal, id, action, text));
  const count = (o: BulkOutcome['outcome']) => results.filter((r) => r.outcome === o).length;
  return { action, done: count('done'), already: count('already'), refused: count('refused'), not_found: count('not_found'), results };
}
