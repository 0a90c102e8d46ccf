import type { RouteDef } from './types';
import { ExchangeRateParams, ListExchangeRatesQuery, PutExchangeRateBody, CreateAccountBody, CreateTokenBody, ListTokensQuery, MetricsQuery, MigrateChannelCodesBody, MigrateSigningSecretsBody, MigrateTokenScopesBody, TariffConsentBody, TariffDecisionsQuery } from '#http/admin/schemas';
import { IdParams, RevokeQuery } from '#http/kit/schemas';

export const AdminAccountsCreate = {
  id: 'AdminAccountsCreate',
  method: 'POST',
  path: '/v1/admin/accounts',
  handler: 'http/admin/accounts',
  summary: 'Create a partner or broker account',
  tag: 'admin',
  auth: { roles: ['admin'], scopes: ['admin'] },
  rate: 'admin',
  uses: { table: ['PutItem', 'UpdateItem'] },
  schemas: { body: CreateAccountBody },
  successStatus: 201,
} satisfies RouteDef;

export const AdminAccountsList = {
  id: 'AdminAccountsList',
  method: 'GET',
  path: '/v1/admin/accounts',
  handler: 'http/admin/accounts',
  summary: 'List accounts',
  tag: 'admin',
  auth: { roles: ['admin'], scopes: ['admin'] },
  rate: 'admin',
  uses: { table: ['Query'] },
} satisfies RouteDef;

export const AdminAccountSigningSecret = {
  id: 'AdminAccountSigningSecret',
  method: 'POST',
  path: '/v1/admin/accounts/{id}/signing-secret',
  handler: 'http/admin/signing-secret',
  summary: "Make or rotate an account's manifest signing secret (shown once)",
  tag: 'admin',
  auth: { roles: ['admin'], scopes: ['admin'] },
  rate: 'admin',
  uses: { table: ['GetItem', 'UpdateItem'], signingSecrets: { manifest: ['seal'] } },
  schemas: { params: IdParams },
  successStatus: 201,
} satisfies RouteDef;

export const AdminAccountTariffConsent = {
  id: 'AdminAccountTariffConsent',
  method: 'PUT',
  path: '/v1/admin/accounts/{id}/tariff-consent',
  handler: 'http/admin/tariff-consent',
  summary: "Record an account's consent (or its withdrawal) that the broker's tariff decisions on its products be exported as labeled items",
  tag: 'admin',
  auth: { roles: ['admin'], scopes: ['admin'] },
  rate: 'admin',
  uses: { table: ['UpdateItem'] },
  schemas: { params: IdParams, body: TariffConsentBody },
} satisfies RouteDef;

export const AdminAccountTariffDecisions = {
  id: 'AdminAccountTariffDecisions',
  method: 'GET',
  path: '/v1/admin/accounts/{id}/tariff-decisions',
  handler: 'http/admin/tariff-decisions',
  summary: "A consenting account's broker decisions as labeled items (docs/tariff/data.md), cursor pages; 409 without its consent",
  tag: 'admin',
  auth: { roles: ['admin'], scopes: ['admin'] },
  rate: 'admin',
  uses: { table: ['GetItem', 'Query'], cursors: true },
  schemas: { params: IdParams, query: TariffDecisionsQuery },
} satisfies RouteDef;

export const AdminTokensCreate = {
  id: 'AdminTokensCreate',
  method: 'POST',
  path: '/v1/admin/tokens',
  handler: 'http/admin/tokens',
  summary: 'Issue a token for an account (the value is shown once)',
  tag: 'admin',
  auth: { roles: ['admin'], scopes: ['admin'] },
  rate: 'admin',
  uses: { table: ['GetItem', 'PutItem', 'UpdateItem'] },
  schemas: { body: CreateTokenBody },
  successStatus: 201,
} satisfies RouteDef;

export const AdminTokensList = {
  id: 'AdminTokensList',
  method: 'GET',
  path: '/v1/admin/tokens',
  handler: 'http/admin/tokens',
  summary: 'List tokens, optionally of one account',
  tag: 'admin',
  auth: { roles: ['admin'], scopes: ['admin'] },
  rate: 'admin',
  uses: { table: ['Query'] },
  schemas: { query: ListTokensQuery },
} satisfies RouteDef;

export const AdminTokensRevoke = {
  id: 'AdminTokensRevoke',
  method: 'DELETE',
  path: '/v1/admin/tokens/{id}',
  handler: 'http/admin/tokens',
  summary: 'Revoke a token',
  tag: 'admin',
  auth: { roles: ['admin'], scopes: ['admin'] },
  rate: 'admin',
  uses: { table: ['Query', 'GetItem', 'UpdateItem', 'BatchWriteItem'] },
  schemas: { params: IdParams, query: RevokeQuery },
} satisfies RouteDef;

/** Accounts and tokens, for the operator (admin role). */
export const adminRoutes = { AdminAccountsCreate, AdminAccountsList, AdminAccountSigningSecret, AdminAccountTariffConsent, AdminAccountTariffDecisions, AdminTokensCreate, AdminTokensList, AdminTokensRevoke };

export const AdminMetrics = {
  id: 'AdminMetrics',
  method: 'GET',
  path: '/v1/admin/metrics',
  handler: 'http/admin/metrics',
  summary: "The twin's business metrics since it started, as JSON or (format=prometheus) Prometheus text; local twin only, in AWS they are in CloudWatch",
  tag: 'admin',
  auth: { roles: ['admin'], scopes: ['admin'] },
  rate: 'admin',
  schemas: { query: MetricsQuery },
  twinOnly: true,
} satisfies RouteDef;

/**
 * The business metrics this process counted, for a developer on the twin (`npm start`): in AWS the
 * same metrics go to CloudWatch (namespace Despacho) and the stage's dashboard, so no function is
 * deployed for it.
 */
export const adminMetricsRoutes = { AdminMetrics };

export const AdminTariffImport = {
  id: 'AdminTariffImport',
  method: 'PUT',
  path: '/v1/admin/tariff',
  handler: 'http/admin/tariff',
  summary:
    'Replace the tariff table from a CSV body (text/csv: ncm,description,duty_rate[,description_en][,keywords]); 422 lists the bad lines by number and stores nothing',
  tag: 'admin',
  rawBody: { contentType: 'text/csv', description: 'The table, a header line then one row per NCM: ncm,description,duty_rate[,description_en][,keywords]' },
  auth: { roles: ['admin'], scopes: ['admin'] },
  rate: 'admin',
  uses: { table: ['GetItem', 'Query', 'BatchWriteItem', 'PutItem', 'UpdateItem'] },
  memoryMb: 512,
  timeoutSeconds: 29,
} satisfies RouteDef;

export const AdminTariffShow = {
  id: 'AdminTariffShow',
  method: 'GET',
  path: '/v1/admin/tariff',
  handler: 'http/admin/tariff',
  summary: 'The tariff table in force: source (builtin or imported), rows, version, imported_at',
  tag: 'admin',
  auth: { roles: ['admin'], scopes: ['admin'] },
  rate: 'admin',
  uses: { table: ['GetItem'] },
} satisfies RouteDef;

export const AdminMigrateChannelCodes = {
  id: 'AdminMigrateChannelCodes',
  method: 'POST',
  path: '/v1/admin/migrations/channel-codes',
  handler: 'http/admin/migrations',
  summary:
    'Rewrite items stored under a former channel code (mercadolibre) to the current one (meli) for about 20 s; call again with data.cursor until data.done',
  tag: 'admin',
  auth: { roles: ['admin'], scopes: ['admin'] },
  rate: 'admin',
  // Transactions: the current key or row put (PutItem) and the former one deleted (DeleteItem).
  uses: { table: ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'], secrets: 'write', cursors: true },
  schemas: { body: MigrateChannelCodesBody },
  timeoutSeconds: 29,
} satisfies RouteDef;

export const AdminMigrateSigningSecrets = {
  id: 'AdminMigrateSigningSecrets',
  method: 'POST',
  path: '/v1/admin/migrations/signing-secrets',
  handler: 'http/admin/migrate-signing-secrets',
  summary:
    'Seal the webhook and manifest signing secrets still stored in clear (written before they were encrypted) for about 20 s; call again with data.cursor until data.done',
  tag: 'admin',
  auth: { roles: ['admin'], scopes: ['admin'] },
  rate: 'admin',
  // Lists accounts and their subscriptions (Query), seals each secret left in clear (UpdateItem, conditional); never opens one.
  uses: { table: ['Query', 'UpdateItem'], signingSecrets: { webhook: ['seal'], manifest: ['seal'] }, cursors: true },
  schemas: { body: MigrateSigningSecretsBody },
  timeoutSeconds: 29,
} satisfies RouteDef;

/** The operator's data: the tariff table (read by the tariff classifier), the channel-code and signing-secrets migrations. */
export const AdminMigrateTokenScopes = {
  id: 'AdminMigrateTokenScopes',
  method: 'POST',
  path: '/v1/admin/migrations/token-scopes',
  handler: 'http/admin/migrate-token-scopes',
  summary:
    'Write out the scopes of the tokens issued before every route named one (what each could do then) for about 20 s; call again with data.cursor until data.done',
  tag: 'admin',
  auth: { roles: ['admin'], scopes: ['admin'] },
  rate: 'admin',
  // Lists every token (Query), writes each one's scopes once (UpdateItem, conditional).
  uses: { table: ['Query', 'UpdateItem'], cursors: true },
  schemas: { body: MigrateTokenScopesBody },
  timeoutSeconds: 29,
} satisfies RouteDef;

export const AdminExchangeRatesPut = {
  id: 'AdminExchangeRatesPut',
  method: 'PUT',
  path: '/v1/admin/exchange-rates/{date}',
  handler: 'http/admin/exchange-rates',
  summary:
    "Set a day's exchange rate (ARS per USD, the Banco Nación selling rate; docs/spec/customs-ar.md): 201 once, 200 for the same rate again, 409 for another rate of a day already set",
  tag: 'admin',
  auth: { roles: ['admin'], scopes: ['admin'] },
  rate: 'admin',
  // A conditional create (PutItem); when it loses, the day's item is read (GetItem). The batches
  // waiting for that day's rate (Query) are handed to the pipeline (bus: manifest.reprocess_requested).
  uses: { table: ['PutItem', 'GetItem', 'Query'], bus: true },
  schemas: { params: ExchangeRateParams, body: PutExchangeRateBody },
  successStatus: 201,
} satisfies RouteDef;

export const AdminExchangeRatesList = {
  id: 'AdminExchangeRatesList',
  method: 'GET',
  path: '/v1/admin/exchange-rates',
  handler: 'http/admin/exchange-rates-list',
  summary: 'The exchange rates stored for the days from `from` to `to` (YYYY-MM-DD, both included, at most 366 days)',
  tag: 'admin',
  auth: { roles: ['admin'], scopes: ['admin'] },
  rate: 'admin',
  uses: { table: ['Query'] },
  schemas: { query: ListExchangeRatesQuery },
} satisfies RouteDef;

export const adminDataRoutes = { AdminTariffImport, AdminTariffShow, AdminMigrateChannelCodes, AdminMigrateSigningSecrets, AdminMigrateTokenScopes, AdminExchangeRatesPut, AdminExchangeRatesList };
