import { defineEntity, service, key, keyless, required } from '../entity';

/**
 * A batch that completed without its exchange rate (amounts in pesos, issue 44): one item per day
 * whose rate is missing and batch, written by the run's finish. The batches waiting on a day share
 * a partition, so setting that day's rate finds them with one query.
 */
export const pesosWaits = defineEntity({
  model: { entity: 'pesosWait', version: '1', service },
  attributes: {
    ...required({ date: 'string', batchId: 'string', accountId: 'number', runId: 'string', at: 'string' }),
  },
  indexes: {
    byDay: { pk: key('pk', 'PESOSWAIT#${date}', keyless), sk: key('sk', 'BATCH#${batchId}', keyless) },
  },
} as const);
