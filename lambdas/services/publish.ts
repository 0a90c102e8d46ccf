import { domainEvent, events } from '#infra/events';
import { logger } from '#shared/logger';

/**
 * Publishes an account's domain events after its write has landed. Publishing must not undo a
 * saved write, so a failure is logged for the operator instead of answered.
 */
export async function publishEvents(accountId: number, list: { type: string; data: unknown }[]): Promise<void> {
  if (!list.length) return;
  try {
    await events().publish(list.map((e) => domainEvent(e.type, accountId, e.data)));
  } catch (err) {
    logger.error('event not published', { accountId, types: list.map((e) => e.type), error: err as Error });
  }
}
