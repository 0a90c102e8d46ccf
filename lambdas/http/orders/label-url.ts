import type { ApiEvent } from '../kit/route';
import { apiBase } from '#catalog/routing';

/**
 * The absolute address of a shipment's label, on the host the caller used (webhook receivers
 * need an absolute URL; the API's own domain is not known to the function before deploy).
 */
export function labelUrl(event: ApiEvent, headers: Record<string, string>, shipmentId: number): string {
  const host = event.requestContext.domainName || headers.host || 'localhost';
  const proto = headers['x-forwarded-proto'] ?? (/^(localhost|127\.|\[::1\])/.test(host) ? 'http' : 'https');
  return `${proto}://${host}${apiBase}/v1/shipping/shipments/${shipmentId}/label`;
}
