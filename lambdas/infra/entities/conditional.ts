/**
 * A conditional write lost (the record changed or already exists): the caller decides what that
 * means. A module of its own, without ElectroDB, so the Authorizer's raw token writes
 * (auth/token-raw.ts) can tell it apart without carrying `entity.ts`.
 */
export function isConditionalFailure(err: unknown): boolean {
  const e = err as { name?: string; cause?: { name?: string }; message?: string };
  return (
    e?.name === 'ConditionalCheckFailedException' ||
    e?.cause?.name === 'ConditionalCheckFailedException' ||
    /conditional request failed/i.test(e?.message ?? '')
  );
}
