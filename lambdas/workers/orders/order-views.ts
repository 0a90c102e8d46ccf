import { refreshView, type ViewMessage } from '#services/orders/list-view';
import { logger } from '#shared/logger';
import { sqsRecords } from '../sqs-records';

/** The order-views queue: brings an account's order snapshot up to its version (services/orders/list-view.ts). */
export const handler = sqsRecords(
  'order snapshot failed',
  async (record) => {
    const message = JSON.parse(record.body) as ViewMessage;
    if (!Number.isSafeInteger(message.accountId) || !Number.isSafeInteger(message.version)) throw new Error('an order-views message names no account and version');
    logger.info('order snapshot', { outcome: await refreshView(message) });
  },
  { ids: (body: ViewMessage) => ({ accountId: body.accountId }) },
);
