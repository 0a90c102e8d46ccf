import { getAccount } from '#infra/entities/auth';
import { mapConcurrent } from '#shared/concurrency';

/** Account names by id, each account read once (the couriers' names the broker's screens show, issue 40). */
export async function accountNames(ids: Iterable<number>): Promise<Map<number, string | null>> {
  const unique = [...new Set(ids)];
  const accounts = await mapConcurrent(unique, 8, (id) => getAccount(id));
  return new Map(unique.map((id, k) => [id, accounts[k]?.name ?? null]));
}
