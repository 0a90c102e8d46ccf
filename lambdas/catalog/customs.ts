import type { RouteDef, WorkerDef } from './types';
import { CalculateBody, CanEditBody, ClientInfoBody, NcmSearchQuery, QuotaCheckBody } from '#http/customs/schemas';

export const CouriersQuotaCheck = {
  id: 'CouriersQuotaCheck',
  method: 'POST',
  path: '/v1/couriers/quota/check',
  handler: 'http/customs/quota-check',
  summary: "A tax id's personal-shipment quota record (spec 2.7); an invalid CUIT/CUIL/DNI is 422",
  tag: 'couriers',
  auth: { scopes: ['manifests:read'] },
  rate: 'couriers.status',
  uses: { table: ['GetItem', 'BatchGetItem'] },
  schemas: { body: QuotaCheckBody },
} satisfies RouteDef;

export const CouriersClientInfoCanEdit = {
  id: 'CouriersClientInfoCanEdit',
  method: 'POST',
  path: '/v1/couriers/client-info/can-edit',
  handler: 'http/customs/can-edit',
  summary: "Whether an AWB's tax id can still be corrected (until the broker closes its batch)",
  tag: 'couriers',
  auth: { scopes: ['manifests:read'] },
  rate: 'couriers.status',
  uses: { table: ['GetItem', 'Query'] },
  schemas: { body: CanEditBody },
} satisfies RouteDef;

export const CouriersClientInfoUpdate = {
  id: 'CouriersClientInfoUpdate',
  method: 'PUT',
  path: '/v1/couriers/client-info',
  handler: 'http/customs/client-info',
  summary: "Correct an AWB's tax id: its quota slot is given back and web services and calculations run again",
  tag: 'couriers',
  auth: { scopes: ['manifests:write'] },
  rate: 'couriers.submit',
  uses: { table: ['GetItem', 'Query', 'UpdateItem', 'ConditionCheckItem'], bus: true },
  schemas: { body: ClientInfoBody },
} satisfies RouteDef;

export const CustomsCalculate = {
  id: 'CustomsCalculate',
  method: 'POST',
  path: '/v1/customs/calculate',
  handler: 'http/customs/calculate',
  summary:
    'A landed-cost quote: regime, tariff code, CIF, duty, statistics fee, VAT and DDP of one product line into AR, as the pipeline calculates them',
  tag: 'customs',
  auth: { scopes: ['customs:read'] },
  rate: 'customs.quotes',
  uses: { table: ['GetItem', 'Query'], bedrock: true },
  schemas: { body: CalculateBody },
} satisfies RouteDef;

export const CustomsNcmSearch = {
  id: 'CustomsNcmSearch',
  method: 'GET',
  path: '/v1/customs/tariff/ncm',
  handler: 'http/customs/ncm-search',
  summary:
    'The tariff table in force searched by words (Spanish or English; accents, case and plurals folded; every word matches as the start of a word) or by code prefix (8517, 8517.13): each NCM with its description, duty rate and VAT rate (the NCM picker of the broker\'s review; any token)',
  tag: 'customs',
  auth: { scopes: ['tariff:read'] },
  rate: 'couriers.status',
  // GetItem, Query: the tariff meta record and the imported table's rows (infra/tariff/table-source.ts), read once a minute at most.
  uses: { table: ['GetItem', 'Query'] },
  schemas: { query: NcmSearchQuery },
} satisfies RouteDef;

/**
 * Tax-id quota and client info (spec 4.6: the ledger of personal shipments, tax-id corrections),
 * and landed-cost quotes (issue 17, item 3: the pipeline's calculation of one product line, stored nowhere).
 */
export const customsRoutes = { CouriersQuotaCheck, CouriersClientInfoCanEdit, CouriersClientInfoUpdate, CustomsCalculate, CustomsNcmSearch };

export const ExchangeRateRetry = {
  id: 'ExchangeRateRetry',
  handler: 'workers/customs/exchange-rate-retry',
  summary: "Asks the BCRA again, on the schedule's tick, for the days batches wait for; stores a rate it answers and hands the day's batches over as setting the rate does",
  queue: 'exchangeRateRetry',
  batchSize: 1,
  timeoutSeconds: 120,
  uses: {
    // PutItem: the fetched rate, a conditional create; DeleteItem: a day no batch waits for any more.
    // The bus: the reprocess events that complete the waiting batches' pesos.
    table: ['GetItem', 'Query', 'PutItem', 'DeleteItem'],
    bus: true,
  },
} satisfies WorkerDef;

export const customsWorkers = { ExchangeRateRetry };
