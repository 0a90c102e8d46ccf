import { defineEntity, service, key, keyless, required } from '../entity';

/**
 * A day whose exchange rate some batch waited for (issue 44): one small item per day in one
 * partition (`PESOSWAITDAYS`, sorted by date), so the scheduled retry finds the days to ask the
 * BCRA for with one query. It never lists the batches (they are the day's `pesosWait` items):
 * `waits` counts the waits written on that day, so the retry forgets the day only while no wait
 * was written since it looked (a conditional delete).
 */
export const pesosWaitDays = defineEntity({
  model: { entity: 'pesosWaitDay', version: '1', service },
  attributes: {
    ...required({ date: 'string', waits: 'number' }),
  },
  indexes: {
    all: { pk: key('pk', 'PESOSWAITDAYS', keyless), sk: key('sk', 'DAY#${date}', keyless) },
  },
} as const);
