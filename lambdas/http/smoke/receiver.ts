/**
 * The smoke test's webhook receiver (staging; lib/smoke-receiver.ts; docs/operators/deploy.md,
 * "The smoke test"). Behind a Lambda function URL: `POST /<uuid>` keeps what was sent (the
 * webhook headers and the body) for an hour; `GET /<uuid>` answers `{ deliveries: [{ headers,
 * body }] }`, oldest first, the protocol `npm run smoke -- --receiver-url` speaks. A path is a run's
 * own random UUID; anything else is 404. It keeps only `smoke#<uuid>` items of the stage's table,
 * which is all its role may write or read.
 */
import { smokeDeliveryStore, smokeReceiverLimits, type SmokeDeliveryStore } from '#services/smoke-deliveries';

export { smokeReceiverLimits };

/** A function URL's event (payload 2.0), as far as the receiver reads it. */
export interface UrlEvent {
  rawPath: string;
  headers?: Record<string, string | undefined>;
  body?: string;
  isBase64Encoded?: boolean;
  requestContext: { http: { method: string } };
}

export interface UrlResult {
  statusCode: number;
  headers?: Record<string, string>;
  body?: string;
}

/** The headers a signed webhook carries (Standard Webhooks) and the body's type: nothing else is kept. */
const keptHeaders = ['webhook-id', 'webhook-timestamp', 'webhook-signature', 'content-type', 'user-agent'];

const json = (statusCode: number, body: unknown): UrlResult => ({ statusCode, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

export function smokeReceiver(deps: { store: SmokeDeliveryStore; now?: () => Date }) {
  const now = deps.now ?? (() => new Date());
  return async (event: UrlEvent): Promise<UrlResult> => {
    const path = /^\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/.exec(event.rawPath ?? '')?.[1];
    if (!path) return json(404, { message: 'Not Found: a receiver path is /<uuid>' });
    const method = event.requestContext?.http?.method;
    if (method === 'POST') {
      const body = Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8');
      if (body.length > smokeReceiverLimits.maxBodyBytes) return json(413, { message: `A delivery is at most ${smokeReceiverLimits.maxBodyBytes} bytes` });
      const headers = Object.fromEntries(keptHeaders.flatMap((h) => (event.headers?.[h] === undefined ? [] : [[h, String(event.headers[h]).slice(0, 1024)]])));
      await deps.store.keep(path, { headers, body: body.toString('utf8') }, now());
      return { statusCode: 204 };
    }
    if (method === 'GET') return json(200, { deliveries: await deps.store.list(path, now()) });
    return { ...json(405, { message: 'Method Not Allowed: POST or GET' }), headers: { 'content-type': 'application/json', allow: 'GET, POST' } };
  };
}

let live: ((event: UrlEvent) => Promise<UrlResult>) | undefined;

export const handler = (event: UrlEvent): Promise<UrlResult> => {
  live ??= smokeReceiver({ store: smokeDeliveryStore() });
  return live(event);
};
