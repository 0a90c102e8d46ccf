import * as v from 'valibot';
import type { RouteResponses } from '#catalog/types';
import { roles, scopes } from '#catalog/types';
import { accountKinds } from '#core/auth/accounts';
import { data, failure, integer, nullable, timestamp } from '../kit/responses';

/** The answers of the operator's routes (accounts, tokens, tariff, migrations), for openapi.json: see core/auth/views.ts. */

export const Account = v.strictObject({
  id: integer,
  name: v.string(),
  kind: v.picklist(accountKinds),
  has_signing_secret: v.boolean(),
  /** Whether the broker's tariff decisions on its products may be exported as labeled items; when that was last recorded. */
  shares_tariff_decisions: v.boolean(),
  tariff_consent_at: nullable(timestamp),
  tariff_consent_reference: nullable(v.string()),
  created_at: timestamp,
  updated_at: timestamp,
});
export const Token = v.strictObject({
  id: integer,
  account_id: integer,
  name: v.string(),
  email: nullable(v.string()),
  role: v.picklist(roles),
  scopes: v.array(v.picklist(scopes)),
  created_at: timestamp,
  last_used_at: nullable(timestamp),
  revoked_at: nullable(timestamp),
  /** When the token stops working; null: until revoked. */
  expires_at: nullable(timestamp),
  /** Neither revoked nor expired. */
  active: v.boolean(),
  /** The token that issued it; null for a seeded token or one issued before issue 41. */
  created_by_token_id: nullable(integer),
});
/** What a revocation with `cascade=true` revoked or disabled with the token (empty without it). */
export const cascaded = { cascaded: v.strictObject({ tokens: v.array(integer), subscriptions: v.array(integer) }) };
/** A day's exchange rate as stored (docs/spec/customs-ar.md, "The exchange rate"). */
export const StoredExchangeRate = v.strictObject({
  date: v.pipe(v.string(), v.description('The day the rate is of, YYYY-MM-DD')),
  rate: v.pipe(v.number(), v.description('ARS per USD')),
  source: v.pipe(v.string(), v.description('Where it was read: bcra (the official public source), operator, or the words the operator gave')),
  set_at: timestamp,
  /** `<token id> <token name>` of who set it; null when the official-source adapter stored it. */
  set_by: nullable(v.string()),
});
const tariffTable = { rows: integer, classifier: v.picklist(['bedrock', 'offline']) };

/** One metric as the twin tallied it since it started (lambdas/shared/metrics.ts). */
const metricSample = v.strictObject({
  name: v.string(),
  unit: v.string(),
  dimensions: v.record(v.string(), v.string()),
  samples: integer,
  sum: v.number(),
  min: v.number(),
  max: v.number(),
});

export const adminResponses = {
  AdminMetrics: {
    answers: {
      200: {
        ...data("The twin's metrics since it started (JSON), or with format=prometheus Prometheus' text format", v.strictObject({ namespace: v.string(), stage: v.string(), since: timestamp, metrics: v.array(metricSample) })),
        file: ['text/plain'],
      },
    },
  },
  AdminAccountsCreate: { answers: { 201: data('The account', Account, { message: true }) } },
  AdminAccountsList: { answers: { 200: data('Every account', v.array(Account), { extra: { count: integer } }) } },
  AdminAccountSigningSecret: {
    answers: {
      201: data(
        'The manifest signing secret, shown this once (a new one replaces the old)',
        v.strictObject({ account_id: integer, secret: v.string(), created_at: timestamp, rotated: v.boolean() }),
        { message: true, extra: { important: v.string() } },
      ),
      404: failure('No such account', ['not_found']),
    },
  },
  AdminAccountTariffConsent: {
    answers: { 200: data('The account with its consent as recorded now', Account, { message: true }), 404: failure('No such account', ['not_found']) },
  },
  AdminAccountTariffDecisions: {
    answers: {
      200: data(
        "The account's broker decisions as labeled items (docs/tariff/data.md), one per decision; a page may hold fewer than per_page: follow next_cursor until it is null",
        v.array(
          v.strictObject({
            source: v.literal('broker-decision'),
            doc_id: v.string(),
            date: v.string(),
            hs6: v.string(),
            ncm_code: v.string(),
            description: v.string(),
            declared_code: nullable(v.string()),
            product_link: nullable(v.string()),
          }),
        ),
        { extra: { meta: v.strictObject({ account_id: integer, per_page: integer, cursor: nullable(v.string()), next_cursor: nullable(v.string()) }) } },
      ),
      404: failure('No such account', ['not_found']),
      409: failure('The account has not consented to export its decisions', ['conflict']),
    },
  },
  AdminTokensCreate: { answers: { 201: data('The token, its value shown this once', v.strictObject({ ...Token.entries, token: v.string() }), { message: true }) } },
  AdminTokensList: { answers: { 200: data('The tokens (of one account with account_id)', v.array(Token), { extra: { count: integer } }) } },
  AdminTokensRevoke: { answers: { 200: data('The token, revoked (with cascade=true, what it made too)', Token, { message: true, extra: cascaded }), 404: failure('No such token', ['not_found']) } },
  AdminTariffImport: {
    answers: {
      200: data(
        'The table imported, and the version it replaced',
        v.strictObject({ source: v.literal('imported'), rows: integer, version: v.string(), imported_at: timestamp, replaced_version: nullable(v.string()) }),
        { message: true },
      ),
      413: failure('The file is larger than 4 MB', ['payload_too_large']),
      415: failure('Not text/csv', ['unsupported_media_type']),
      422: failure('Not UTF-8, or lines are invalid (one entry per line); nothing was stored', ['validation_failed']),
    },
  },
  AdminTariffShow: {
    answers: {
      200: data(
        'The tariff table in use (the built-in one until a table is imported) and the classifier',
        v.union([
          v.strictObject({ source: v.literal('imported'), ...tariffTable, version: v.string(), imported_at: timestamp, imported_by: nullable(v.string()) }),
          v.strictObject({ source: v.literal('builtin'), ...tariffTable, version: v.null(), imported_at: v.null(), imported_by: v.null() }),
        ]),
      ),
    },
  },
  AdminExchangeRatesPut: {
    answers: {
      201: data("The day's rate, stored", StoredExchangeRate, { message: true }),
      200: data('The day already held this rate; nothing changed', StoredExchangeRate, { message: true }),
      409: failure('The day already holds another rate (the message names it)', ['conflict']),
      422: failure('A bad date (not YYYY-MM-DD, after today) or rate (not > 0, above 1000000, more than 6 decimals), or an unknown field', ['validation_failed']),
    },
  },
  AdminExchangeRatesList: {
    answers: {
      200: data('The stored rates of the days asked, in date order (days without one are left out)', v.array(StoredExchangeRate), { extra: { count: integer } }),
      422: failure('from or to missing or not YYYY-MM-DD, to before from, more than 366 days', ['validation_failed']),
    },
  },
  AdminMigrateChannelCodes: {
    answers: {
      200: data(
        'What this call moved; call again with data.cursor until done',
        v.strictObject({
          done: v.boolean(),
          cursor: nullable(v.string()),
          codes: v.record(v.string(), v.string()),
          accounts: integer,
          orders: integer,
          index_rows: integer,
          channel_keys: integer,
          connections: integer,
          credentials: integer,
          syncs: integer,
          conflicts: v.array(v.string()),
        }),
        { message: true },
      ),
    },
  },
  AdminMigrateSigningSecrets: {
    answers: {
      200: data(
        'What this call sealed; call again with data.cursor until done',
        v.strictObject({ done: v.boolean(), cursor: nullable(v.string()), accounts: integer, manifest_secrets: integer, webhook_secrets: integer }),
        { message: true },
      ),
    },
  },
  AdminMigrateTokenScopes: {
    answers: {
      200: data(
        'What this call wrote out; call again with data.cursor until done',
        v.strictObject({ done: v.boolean(), cursor: nullable(v.string()), tokens: integer, written: integer }),
        { message: true },
      ),
    },
  },
} satisfies Record<string, RouteResponses>;
