import type { ProofRecord } from '#core/deliveries/proof';
import { deliveryProofs, type DeliveryProofItem } from './deliveries/proof';
import { isConditionalFailure } from './entity';

/** Writes the proof if the account has none for its AWB: 'created', or 'exists' (nothing written). */
export async function createProof(proof: ProofRecord): Promise<'created' | 'exists'> {
  try {
    await deliveryProofs().create(proof).go();
    return 'created';
  } catch (err) {
    if (isConditionalFailure(err)) return 'exists';
    throw err;
  }
}

export async function getProof(accountId: number, awbNumber: string): Promise<ProofRecord | undefined> {
  const res = await deliveryProofs().get({ accountId, awbNumber }).go({ consistent: true });
  return res.data ?? undefined;
}

export type ProofFilter = { awbNumber: string } | { manifestNumber: string } | { mawbNumber: string };

/** One page of proofs found by AWB, manifest or flight; `accountId` undefined: every account's (a broker's). */
export async function findProofs(filter: ProofFilter, accountId: number | undefined, page: { cursor?: string; limit: number }): Promise<{ proofs: DeliveryProofItem[]; cursor: string | null }> {
  const opts = { cursor: page.cursor ?? null, limit: page.limit };
  const q = deliveryProofs().query;
  const res =
    'awbNumber' in filter
      ? await q.anyAccountByAwb(accountId === undefined ? { awbNumber: filter.awbNumber } : { awbNumber: filter.awbNumber, accountId }).go(opts)
      : 'manifestNumber' in filter
        ? await q.byManifest(accountId === undefined ? { manifestNumber: filter.manifestNumber } : { manifestNumber: filter.manifestNumber, accountId }).begins({}).go(opts)
        : await q.byFlight(accountId === undefined ? { mawbNumber: filter.mawbNumber } : { mawbNumber: filter.mawbNumber, accountId }).begins({}).go(opts);
  return { proofs: res.data, cursor: res.cursor };
}
