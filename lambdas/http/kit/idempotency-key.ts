import { BadRequest } from '#core/errors';

/** `Idempotency-Key`, when sent, must be a UUID; it is compared lower-cased. */
export function idempotencyKey(headers: Record<string, string>): string | undefined {
  const key = headers['idempotency-key'];
  if (key === undefined) return undefined;
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(key.trim())) {
    throw new BadRequest('Idempotency-Key must be a UUID.');
  }
  return key.trim().toLowerCase();
}
