/** Every event a subscription can name: spec 6.1 (dashboard) and 6.2 (API), one list. */
export const webhookEvents = [
  { event: 'order.created', description: 'New order received' },
  { event: 'order.updated', description: 'Order status changed' },
  { event: 'order.cancelled', description: 'Order was cancelled' },
  { event: 'shipment.created', description: 'Label generated, tracking available' },
  { event: 'shipment.delivered', description: 'Package delivered' },
  { event: 'inventory.low_stock', description: 'Stock fell below a threshold' },
  { event: 'manifest.processed', description: 'Courier manifest completed: its results are ready (once per processing run)' },
  { event: 'manifest.processing_completed', description: 'Processing run finished successfully: which run, what it covered, when' },
  { event: 'manifest.reviewed', description: "A broker's review of the results ended (the batch was closed): the products it changed" },
  { event: 'manifest.invalid_cuit_detected', description: 'Invalid tax IDs found (quota 0 or validation error)' },
  { event: 'manifest.total_due', description: 'Total due amount calculated' },
  { event: 'manifest.processing_failed', description: 'Processing failed critically' },
  { event: 'document.uploaded', description: 'Transport document uploaded' },
  { event: 'document.validated', description: 'Document passed validation' },
  { event: 'document.approved', description: 'Document approved' },
  { event: 'document.rejected', description: 'Document rejected' },
  { event: 'document.superseded', description: 'Document replaced by a newer version' },
  { event: 'document.downloaded', description: 'Document downloaded' },
  { event: 'delivery.recorded', description: 'Proof of delivery recorded for an AWB' },
] as const;

export type WebhookEventName = (typeof webhookEvents)[number]['event'];
export const webhookEventNames = webhookEvents.map((e) => e.event) as readonly WebhookEventName[];

/** `order.created` -> { type: 'order', action: 'created' } as available-events lists them. */
export function describeEvent(e: (typeof webhookEvents)[number]) {
  const [type, ...rest] = e.event.split('.');
  return { event: e.event, type, action: rest.join('.'), description: e.description };
}

/**
 * How many changed products `manifest.reviewed` lists (newest first): at most 500 characters of
 * reason each, 20 stay far under EventBridge's 256 KB per event; the rest are a route away.
 */
export const reviewedProductsShown = 20;

/** The synthetic event a test delivery sends. */
export const testEventType = 'webhook.test';
