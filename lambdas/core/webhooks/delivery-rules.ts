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

export function newSigningSecret(): string {
  return 'whsec_' + randomBytes(32).toString('base64url');
}

/** `X-Service-Signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<raw body>">` (spec 5.7). */
export function signature(secret: string, timestamp: number, body: string): string {
  return 'sha256=' + createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

export function signedHeaders(secret: string, timestamp: number, body: string): Record<string, string> {
  return { 'X-Service-Signature': signature(secret, timestamp, body), 'X-Service-Timestamp': String(timestamp) };
}
