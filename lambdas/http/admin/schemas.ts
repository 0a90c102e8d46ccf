import * as v from 'valibot';
import { roles, scopes } from '#catalog/types';
import { cursorParam, intQuery, text } from '../kit/schemas';
import { isCalendarDate, maxRate, maxRateDecimals } from '#core/customs/exchange-rate';

/** Operator bodies are strict: an unknown field is a typo worth a 422, not something to ignore. */
export const CreateAccountBody = v.strictObject({
  name: text(200),
  kind: v.picklist(['partner', 'broker'], 'Must be partner or broker.'),
});

export const CreateTokenBody = v.strictObject({
  account_id: v.pipe(v.number('Must be a number.'), v.integer('Must be an integer.'), v.minValue(1, 'Must be at least 1.')),
  name: text(100),
  email: v.optional(v.pipe(v.string('Must be a string.'), v.trim(), v.maxLength(150, 'Must be at most 150 characters.'), v.email('Must be an e-mail address.'), v.toLowerCase())),
  role: v.picklist(roles, `Must be one of ${roles.join(', ')}.`),
  /** Left out: every scope the role may hold (catalog/access.ts `roleScopes`); given: exactly these. */
  scopes: v.optional(
    v.pipe(
      v.array(v.picklist(scopes, `Must be one of ${scopes.join(', ')}.`), 'Must be an array.'),
      v.maxLength(scopes.length, 'Too many scopes.'),
      v.description('Left out: every scope the role may hold; given: exactly these (each one a route of the role names, else 422)'),
    ),
  ),
  /** When the token stops working: ISO 8601 with a zone, in the future, at most 2 years ahead (checked when issued). */
  expires_at: v.optional(v.pipe(v.string('Must be an ISO 8601 date and time with its zone, e.g. 2027-06-30T18:00:00Z.'), v.trim())),
});

/** The account's consent that the broker's tariff decisions on its products be exported as labeled items. */
export const TariffConsentBody = v.strictObject({
  share_decisions: v.boolean('Must be true or false.'),
  /** Where the consent (or its withdrawal) is written: the agreement's reference, a ticket. */
  reference: v.optional(text(200)),
});

export const TariffDecisionsQuery = v.object({
  cursor: v.optional(cursorParam(2800)),
  per_page: v.optional(intQuery(1, 500), '100'),
});

export const ListTokensQuery = v.object({
  account_id: v.optional(intQuery(1, Number.MAX_SAFE_INTEGER)),
});

/** GET /v1/admin/metrics: JSON by default, or Prometheus' text exposition format. */
export const MetricsQuery = v.object({
  format: v.optional(v.picklist(['json', 'prometheus'], 'Must be json or prometheus.')),
});

/** `migrate channel-codes`: the cursor the previous call answered, none to start. */
export const MigrateChannelCodesBody = v.strictObject({
  cursor: v.optional(v.pipe(v.string('Must be a string.'), v.regex(/^[A-Za-z0-9_-]{1,400}$/, 'Must be a cursor the previous call answered.'))),
});

/** `migrate signing-secrets`: the cursor the previous call answered, none to start. */
export const MigrateTokenScopesBody = v.strictObject({
  cursor: v.optional(v.pipe(v.string('Must be a string.'), v.regex(/^[A-Za-z0-9_-]{1,400}$/, 'Must be a cursor the previous call answered.'))),
});

export const MigrateSigningSecretsBody = v.strictObject({
  cursor: v.optional(v.pipe(v.string('Must be a string.'), v.regex(/^[A-Za-z0-9_-]{1,400}$/, 'Must be a cursor the previous call answered.'))),
});

/** A calendar date written YYYY-MM-DD (a real day: 2025-02-30 is refused). */
const calendarDate = v.pipe(
  v.string('Must be a date, YYYY-MM-DD.'),
  v.check((s) => isCalendarDate(s), 'Must be a date, YYYY-MM-DD.'),
);

/** The decimals of a JSON number as its shortest text writes them (1370.25 -> 2, 1e-7 -> 7). */
function decimalsOf(x: number): number {
  const [mantissa, exp = '0'] = String(x).toLowerCase().split('e');
  return Math.max(0, (mantissa.split('.')[1]?.length ?? 0) - Number(exp));
}

/** PUT /v1/admin/exchange-rates/{date}: the date is checked by the route (a 422 naming it, not a 404). */
export const ExchangeRateParams = v.object({ date: v.pipe(v.string(), v.maxLength(64)) });

/** A day's rate: ARS per USD (the Banco Nación selling rate), and where the operator read it. */
export const PutExchangeRateBody = v.strictObject({
  rate: v.pipe(
    v.number('Must be a number.'),
    v.finite('Must be a finite number.'),
    v.gtValue(0, 'Must be greater than 0.'),
    v.maxValue(maxRate, `Must be at most ${maxRate}.`),
    v.check((x) => decimalsOf(x) <= maxRateDecimals, `Must have at most ${maxRateDecimals} decimals.`),
    v.description('ARS per USD, the Banco de la Nación Argentina selling rate of that day'),
  ),
  /** Where the rate was read; default `operator`. */
  source: v.optional(text(100)),
});

/** GET /v1/admin/exchange-rates: the days from `from` to `to`, both included, at most 366 days. */
export const ListExchangeRatesQuery = v.object({
  from: calendarDate,
  to: calendarDate,
});
