/**
 * The business metrics, declared once: the services emit them (lambdas/shared/metrics.ts), the
 * CDK alarms and draws them (lib/observability.ts), the twin shows them (GET /v1/admin/metrics).
 *
 * Every metric carries the dimensions `service` (despacho), `stage` (dev, staging, prod; `local` on
 * the twin) and `group` (the route group: the catalog tag of the area that emits it, `auth` for
 * the authorizer), plus at most one breakdown dimension whose values are a closed list. Nothing unbounded is ever a
 * dimension: no account id, batch id, AWB, tax id or URL (each distinct value is a metric of its own).
 */
import { rateLimits } from '#catalog/rates';

export const metricNamespace = 'Despacho';

export type MetricUnitName = 'Count' | 'Milliseconds' | 'Count/Second';

export interface MetricDef {
  unit: MetricUnitName;
  /** The catalog tag of the area that emits it (the `group` dimension); `route`: the caller names the route's tag. */
  group: string;
  /** The breakdown dimension and its closed list of values (anything else is sent as `other`). */
  by?: { dimension: string; values: readonly string[] };
  summary: string;
}

const pipelineStages = ['classification', 'webservices', 'ai', 'calculations'] as const;

export const metrics = {
  ManifestsSubmitted: { unit: 'Count', group: 'couriers', by: { dimension: 'mode', values: ['create', 'update', 'chunked'] }, summary: 'Manifests accepted for intake (202; a chunked upload once, when its last chunk arrives).' },
  ItemsAccepted: { unit: 'Count', group: 'couriers', summary: 'Items written by the intake worker.' },
  StageDuration: { unit: 'Milliseconds', group: 'manifests', by: { dimension: 'pipelineStage', values: pipelineStages }, summary: 'Time one page of a pipeline stage took.' },
  StageItemsPerSecond: { unit: 'Count/Second', group: 'manifests', by: { dimension: 'pipelineStage', values: pipelineStages }, summary: 'Items per second of one page of a pipeline stage.' },
  ManifestsCompleted: { unit: 'Count', group: 'manifests', summary: 'Pipeline runs that completed a manifest.' },
  ManifestsFailed: { unit: 'Count', group: 'manifests', summary: 'Pipeline runs that gave up and marked a manifest failed.' },
  TaxIdsInvalid: { unit: 'Count', group: 'manifests', summary: 'Shipments checked by the web-services stage whose consignee tax id is missing or invalid.' },
  QuotaReservationsRefused: { unit: 'Count', group: 'manifests', summary: 'Personal shipments refused a slot: the consignee used up the yearly quota (cleared as commercial).' },
  ItemsClassified: { unit: 'Count', group: 'manifests', by: { dimension: 'source', values: ['partner', 'ai', 'offline'] }, summary: 'Items given a tariff code, by who gave it.' },
  LowConfidenceClassifications: { unit: 'Count', group: 'manifests', summary: 'Items classified with a confidence under the customs channel threshold.' },
  DocumentTransitions: {
    unit: 'Count',
    group: 'documents',
    by: { dimension: 'transition', values: ['uploaded', 'validated', 'approved', 'rejected', 'superseded', 'deleted'] },
    summary: 'Transport documents entering a state.',
  },
  WebhookDeliveries: { unit: 'Count', group: 'webhooks', by: { dimension: 'outcome', values: ['succeeded', 'failed', 'retried'] }, summary: 'Webhook delivery attempts by outcome.' },
  WebhookSubscriptionsDisabled: { unit: 'Count', group: 'webhooks', summary: 'Subscriptions disabled after too many failed deliveries.' },
  OrdersCreated: { unit: 'Count', group: 'orders', by: { dimension: 'channel', values: ['web', 'meli', 'shopify', 'amazon'] }, summary: 'Orders created (web store or marketplace import).' },
  OrdersShipped: { unit: 'Count', group: 'orders', by: { dimension: 'source', values: ['label', 'external'] }, summary: 'Shipments recorded on orders: with a label the service made, or fulfilled outside it.' },
  MarketplaceSyncErrors: { unit: 'Count', group: 'orders', by: { dimension: 'channel', values: ['meli', 'shopify', 'amazon'] }, summary: 'Marketplace syncs that ended in error.' },
  RateLimited: { unit: 'Count', group: 'auth', by: { dimension: 'rateGroup', values: Object.keys(rateLimits) }, summary: 'Requests refused with 429, by rate group.' },
  ApiRequests: { unit: 'Count', group: 'route', by: { dimension: 'status', values: ['2xx', '3xx', '4xx', '5xx'] }, summary: "The twin's API requests by status class (in AWS: API Gateway's Count, 4xx and 5xx)." },
} as const satisfies Record<string, MetricDef>;

export type MetricName = keyof typeof metrics;
