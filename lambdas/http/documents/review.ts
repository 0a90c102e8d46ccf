import type { Context } from 'aws-lambda';
import { route, type ApiEvent } from '../kit/route';
import { ok } from '../kit/reply';
import { documentStateLabels } from '#core/documents/model';
import { reviewDocument } from '#services/documents/documents';
import { DocumentsApprove, DocumentsReject, DocumentsValidate } from '#catalog/documents';

/** PUT validate | approve | reject: the broker's review, one module for the three routes. */
const validate = route(DocumentsValidate.schemas, async ({ params, body, principal }) => {
  const d = await reviewDocument(principal, params.id, { action: 'validate', notes: body.notes });
  return ok(
    { id: d.id, state: d.state, state_label: documentStateLabels[d.state], validation_notes: d.validationNotes ?? null, validated_at: d.validatedAt },
    { message: 'Document validated.' },
  );
});

const approve = route(DocumentsApprove.schemas, async ({ params, body, principal }) => {
  const d = await reviewDocument(principal, params.id, { action: 'approve', notes: body.notes });
  return ok({ id: d.id, state: d.state, state_label: documentStateLabels[d.state], approved_at: d.approvedAt }, { message: 'Document approved.' });
});

const reject = route(DocumentsReject.schemas, async ({ params, body, principal }) => {
  const d = await reviewDocument(principal, params.id, { action: 'reject', reason: body.reason });
  return ok(
    { id: d.id, state: d.state, state_label: documentStateLabels[d.state], rejection_reason: d.rejectionReason, rejected_at: d.rejectedAt },
    { message: 'Document rejected.' },
  );
});

const byAction = { validate, approve, reject } as const;

export const handler = (event: ApiEvent, context: Context) => {
  const action = event.rawPath.split('/').pop() as keyof typeof byAction;
  return (byAction[action] ?? validate)(event, context);
};
