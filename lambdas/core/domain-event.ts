/**
 * A domain event as it travels on the bus: the webhook envelope of spec 2.10 ({id, type,
 * created_at, data}) plus the account it belongs to. `id` stays the same on every delivery.
 */
export interface DomainEvent<T = unknown> {
  id: string;
  type: string;
  created_at: string;
  account_id: number;
  data: T;
}
