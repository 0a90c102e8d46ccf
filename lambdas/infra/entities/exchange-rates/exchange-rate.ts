import type { EntityItem } from 'electrodb';
import { defineEntity, service, key, keyless, required, optional } from '../entity';

/**
 * A day's exchange rate (ARS per USD, the Banco Nación selling rate): one item per currency and day,
 * written once by a conditional create (docs/spec/customs-ar.md, "The exchange rate"). The days of a
 * currency share a partition, sorted by date, so a range of days is one query.
 */
export const exchangeRates = defineEntity({
  model: { entity: 'exchangeRate', version: '1', service },
  attributes: {
    ...required({ currency: 'string', date: 'string', rate: 'string', source: 'string', setAt: 'string' }),
    /** Who set it: `<token id> <token name>` for the admin route, absent for an adapter's fetch. */
    ...optional({ setBy: 'string' }),
  },
  indexes: {
    byDay: { pk: key('pk', 'XRATE#${currency}', keyless), sk: key('sk', 'DAY#${date}', keyless) },
  },
} as const);

/** An item of the entity as a read answers it. */
export type ExchangeRateItem = EntityItem<ReturnType<typeof exchangeRates>>;
