import type { Principal } from '#core/auth/principal';
import { canAccess } from '#core/auth/principal';
import { isVisible, type BatchRecord } from '#core/manifests/model';
import { quotaLimit, quotaRemaining } from '#core/customs/quota';
import { quotaYear } from '#core/customs/regime-rules';
import { now } from '#infra/clock';
import { getBatch, itemsOfAwb } from '#infra/entities/manifests';
import { quotaSlotsOf } from '#infra/entities/quota';
import { requireValidTaxId } from '../customs/webservices';

/**
 * GET /v1/couriers/quota/{tax_id}/shipments: a tax id's personal shipments of a year (the slots of
 * the quota ledger) and the batches whose items hold them. A partner sees its own shipments and
 * only the count of others'; a broker or an admin sees them all.
 */
export async function quotaShipments(principal: Principal, taxId: string, year?: number) {
  const check = requireValidTaxId(taxId);
  const at = now();
  const y = year ?? quotaYear(at);
  const limit = quotaLimit(at);
  const { used, slots } = await quotaSlotsOf(check.digits!, y);
  const mine = slots
    .map((slot) => {
      const bar = slot.indexOf('|');
      return { accountId: Number(slot.slice(0, bar)), awb: slot.slice(bar + 1) };
    })
    .filter((s) => canAccess(principal, s.accountId))
    .sort((a, b) => a.accountId - b.accountId || (a.awb < b.awb ? -1 : a.awb > b.awb ? 1 : 0));
  const batches = new Map<string, Promise<BatchRecord | undefined>>();
  const shipments = await Promise.all(
    mine.map(async (s) => {
      const items = await itemsOfAwb(s.accountId, s.awb);
      const ids = [...new Set(items.map((it) => it.batchId))].sort();
      const found = await Promise.all(ids.map((id) => batches.get(id) ?? (batches.set(id, getBatch(id)), batches.get(id)!)));
      return {
        awb_number: s.awb,
        account_id: s.accountId,
        batches: found
          .filter((b): b is BatchRecord => Boolean(b) && isVisible(b!))
          .map((b) => ({ batch_id: b.batchId, manifest_number: b.manifestNumber, status: b.status, closed_at: b.closedAt ?? null, created_at: b.createdAt })),
      };
    }),
  );
  return {
    tax_id: check.digits!,
    tax_id_formatted: check.formatted ?? check.digits!,
    year: y,
    limit,
    used,
    remaining: quotaRemaining(limit, used),
    shipments,
    others: slots.length - mine.length,
  };
}
