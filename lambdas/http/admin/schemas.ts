import * as v from 'valibot';
import { roles, scopes } from '#catalog/types';
import { cursorParam, intQuery, text } from '../kit/schemas';

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
