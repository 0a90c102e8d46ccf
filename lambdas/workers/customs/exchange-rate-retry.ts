import { retryMissingRates } from '#services/customs/exchange-rates';
import { logger } from '#shared/logger';
import { sqsRecords } from '../sqs-records';

/**
 * The exchange-rate retry queue: each tick of the schedule asks the official source again for the
 * days batches wait for (docs/operators/exchange-rates.md). A day still missing is a warning with
 * its reason: the operator sets it by hand (a holiday the bank publishes no rate for).
 */
export const handler = sqsRecords('exchange-rate retry failed', async () => {
  const retry = await retryMissingRates();
  logger.info('exchange-rate retry', { fetched: retry.fetched, handedOver: retry.handedOver, done: retry.done, justSet: retry.justSet });
  for (const m of retry.missing) logger.warn('exchange rate still missing: batches wait for it', { date: m.date, reason: m.reason });
});
