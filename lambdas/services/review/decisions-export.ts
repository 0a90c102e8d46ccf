import { Conflict, NotFound, ValidationFailed } from '#core/errors';
import { ncmDigits } from '#core/tariff/table';
import { getAccount } from '#infra/entities/auth';
import { listMemories, type MemoryRecord } from '#infra/entities/review';

/**
 * A broker's decision as a labeled item (docs/tariff/data.md's format): the product as the partner
 * described it and the code the broker confirmed or set, with the decision as its document.
 */
export interface LabeledDecision {
  source: 'broker-decision';
  /** `<batch>/<awb>/r<revision>`: the decision; the batch alone for a memory written before issue 39. */
  doc_id: string;
  date: string;
  hs6: string;
  ncm_code: string;
  description: string;
  /** What the partner declared beside it, and its product link, when it sent them. */
  declared_code: string | null;
  product_link: string | null;
}

export const noConsent = (accountId: number) =>
  new Conflict(`Account ${accountId} has not consented to export the broker's tariff decisions on its products; record its consent first (PUT /v1/admin/accounts/${accountId}/tariff-consent).`);

/** A decision remembered under its product link also sits under its description: the link's record is that decision's twin. */
const exported = (m: MemoryRecord) => m.description !== undefined && m.match !== 'link';

export function labeledDecision(m: MemoryRecord): LabeledDecision {
  const digits = ncmDigits(m.ncmCode);
  return {
    source: 'broker-decision',
    doc_id: m.revision !== undefined ? `${m.batchId ?? '-'}/${m.awb ?? '-'}/r${m.revision}` : (m.batchId ?? '-'),
    date: m.decidedAt.slice(0, 10),
    hs6: digits.slice(0, 6),
    ncm_code: m.ncmCode,
    description: m.description!,
    declared_code: m.hsCode ?? null,
    product_link: m.productLink ?? null,
  };
}

/**
 * GET /v1/admin/accounts/{id}/tariff-decisions: one page of the account's remembered decisions as
 * labeled items, only while the account consents (409 otherwise). A decision remembered under both
 * its link and its description is answered once; one without a description (a link alone) is no
 * labeled item and is left out.
 */
export async function exportDecisions(accountId: number, cursor: string | undefined, perPage: number) {
  const account = await getAccount(accountId);
  if (!account) throw new NotFound('Account not found.');
  if (!account.sharesTariffDecisions) throw noConsent(accountId);
  const page = await listMemories(accountId, { cursor, limit: perPage });
  if (!page) throw new ValidationFailed({ cursor: ['Is not a cursor this list answered; leave it out to start from the first page.'] });
  return {
    data: page.memories.filter(exported).map(labeledDecision),
    meta: { account_id: accountId, per_page: perPage, cursor: cursor ?? null, next_cursor: page.cursor ?? null },
  };
}
