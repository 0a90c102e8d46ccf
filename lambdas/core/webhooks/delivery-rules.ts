import { createHmac, randomBytes } from 'node:crypto';

/** Delays before attempts 2..6, after the previous failure (spec 6.4). */
export const retryDelaysMs = [60_000, 5 * 60_000, 30 * 60_000, 2 * 3600_000, 24 * 3600_000] as const;
export const disableAfterFailures = 10;
/** Receivers should answer within 5 seconds (spec 6.4); a little slack for the network. */
export const deliveryTimeoutMs = 10_000;

/** When the next attempt is due after `failedAttempts` failures, or null when none is left. */
export function nextAttemptAt(failedAttempts: number, failedAt: Date): Date | null {
  const delay = retryDelaysMs[failedAttempts - 1];
  return delay === undefined ? null : new Date(failedAt.getTime() + delay);
}

export type HealthStatus = 'healthy' | 'degraded' | 'unhealthy' | 'disabled';

export const healthColors: Record<HealthStatus, string> = { healthy: 'green', degraded: 'yellow', unhealthy: 'red', disabled: 'gray' };

/** Spec 3.4 from consecutive failures; an inactive subscription is disabled whatever its count. */
export function health(consecutiveFailures: number, active: boolean): HealthStatus {
  if (!active || consecutiveFailures >= disableAfterFailures) return 'disabled';
  if (consecutiveFailures >= 6) return 'unhealthy';
  if (consecutiveFailures >= 1) return 'degraded';
  return 'healthy';
}

/**
 * One secret per subscription, in the form Standard Webhooks libraries take as it is:
 * `whsec_` and the standard base64 (with padding) of 32 random bytes. Both signatures come from it.
 */
export function newSigningSecret(): string {
  return 'whsec_' + randomBytes(32).toString('base64');
}

/**
 * A secret made before the one form: `whsec_<base64url>` (43 characters, `-` or `_` possible, no
 * padding), which the Standard Webhooks libraries refuse. Such a subscription goes on signing with
 * it, both headers alike, until its owner rotates.
 */
export function isOldFormSecret(secret: string): boolean {
  return !/^whsec_[A-Za-z0-9+/]{43}=$/.test(secret);
}

/**
 * `X-Service-Signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<raw body>">` (spec 5.7), keyed
 * with the signing secret as text: its UTF-8 bytes, `whsec_` included, exactly as shown.
 */
export function signature(secret: string, timestamp: number, body: string): string {
  return 'sha256=' + createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

/** How long a rotated-out secret still signs, so receivers can switch without a gap. */
export const secretOverlapMs = 24 * 3600_000;

/**
 * The key Standard Webhooks signs with: for a `whsec_<base64>` secret, the bytes the base64 after
 * the prefix stands for, as the Standard Webhooks specification defines (an old-form secret's
 * base64url decodes to its bytes the same way); any other secret, its UTF-8 bytes.
 */
export function standardWebhooksKey(secret: string): Buffer {
  const m = /^whsec_([A-Za-z0-9+/_-]+={0,2})$/.exec(secret);
  const decoded = m ? Buffer.from(m[1], 'base64') : undefined;
  return decoded && decoded.length > 0 ? decoded : Buffer.from(secret, 'utf8');
}

/**
 * The secret as Standard Webhooks libraries take it: `whsec_` and the standard base64 of the key.
 * A one-form secret is itself; an old-form one is re-spelled (the same key).
 */
export function standardWebhooksSecret(secret: string): string {
  return 'whsec_' + standardWebhooksKey(secret).toString('base64');
}

/**
 * `webhook-signature`: `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<raw body>">` for each
 * secret that signs (the current one first, then one in its rotation overlap), space-separated.
 */
export function standardSignature(secrets: readonly string[], id: string, timestamp: number, body: string): string {
  return secrets.map((s) => 'v1,' + createHmac('sha256', standardWebhooksKey(s)).update(`${id}.${timestamp}.${body}`).digest('base64')).join(' ');
}

/**
 * Every signature header of a delivery, from the plaintext secret: spec 5.7's `X-Service-*` (the
 * current secret) and Standard Webhooks' `webhook-id` (the envelope id, the same on every
 * attempt), `webhook-timestamp` and `webhook-signature`. While a rotated-out secret overlaps
 * (`previousSecrets`), it signs `webhook-signature` too and `X-Service-Previous-Signature` (spec
 * 5.7's rule with that secret), so a receiver of either kind switches without a gap.
 */
export function signedHeaders(secret: string, timestamp: number, body: string, msg: { id: string; previousSecrets?: readonly string[] }): Record<string, string> {
  const previous = msg.previousSecrets ?? [];
  return {
    'X-Service-Signature': signature(secret, timestamp, body),
    'X-Service-Timestamp': String(timestamp),
    ...(previous.length ? { 'X-Service-Previous-Signature': previous.map((s) => signature(s, timestamp, body)).join(' ') } : {}),
    'webhook-id': msg.id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': standardSignature([secret, ...previous], msg.id, timestamp, body),
  };
}
