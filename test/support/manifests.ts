import { randomUUID } from 'node:crypto';
import { cuitCheckDigit } from '#core/customs/tax-id';
import type { TestTwin } from './twin';

/** One valid item of spec 2.5; `i` makes its AWB and key unique. */
export function item(i: number, over: Record<string, unknown> = {}) {
  return {
    awbNumber: `AWB${String(i).padStart(7, '0')}`,
    itemIdempotencyKey: `line-${i}`,
    originCountry: 'CN',
    consigneeName: `Consignee ${i}`,
    consigneeAddress: 'Av. Corrientes 1234',
    consigneeCity: 'CABA',
    consigneeProvince: 'Buenos Aires',
    consigneePostalCode: 'C1043',
    consigneeIdType: 'CUIL',
    consigneeIdNumber: '20123456786',
    consigneeEmail: `buyer${i}@example.com`,
    itemDescription: 'Cotton t-shirt',
    hsCode: '6109.10.00',
    fobValueUsd: 12.5,
    totalWeightKg: 0.3,
    amountOfItems: 1,
    amountOfPackages: 1,
    ...over,
  };
}

export function items(n: number, from = 1, over: Record<string, unknown> = {}) {
  return Array.from({ length: n }, (_, k) => item(from + k, over));
}

export function manifest(n: number, over: Record<string, unknown> = {}) {
  return { mawbNumber: `MAWB-${randomUUID().slice(0, 8)}`, items: items(n), ...over };
}

export const submitPath = (courier = 'default') => `/v1/couriers/${courier}/manifests/webhook`;

/** Submits `body` to the courier route with a fresh Idempotency-Key (202) and answers its batch id, once intake wrote it. */
export async function submitForBatch(t: TestTwin, token: string, body: unknown): Promise<string> {
  const key = randomUUID();
  const res = await t.submit(submitPath(), { token, body, headers: { 'idempotency-key': key } });
  // Plain Error, not vitest's expect: scripts (the benchmarks) import this module too.
  if (res.status !== 202) throw new Error(`submitting a manifest answered ${res.status}, not 202: ${res.text}`);
  return (await t.call('GET', `/v1/couriers/default/webhook/${key}/status`, { token })).body.batch_id as string;
}

/** A valid CUIL (`prefix` 20: a man, 27: a woman) of a person no other test uses. */
export function freshCuil(prefix: '20' | '27' = '27'): string {
  const first10 = `${prefix}${String(10_000_000 + Math.floor(Math.random() * 89_999_999)).padStart(8, '0')}`;
  return first10 + cuitCheckDigit(first10);
}

/** A GET of the service, as a test's client makes it with its token. */
export type StatusGet = (path: string) => Promise<{ status: number; body: any; text?: string }>;

/**
 * Polls a GET of the couriers.status group (a submission's `/status`, a batch's `/pipeline-status`,
 * the manifests' list: 120 calls a minute per token) as a polite client does, until `done`
 * answers something, and answers that. It asks at most twice a second and waits a 429 out for its
 * `retry_after`. Polled every 50 ms, a token was refused after a few seconds and every answer
 * after that was a 429 to the end of the minute: the console's 10,000-item intake of 12 s took
 * 45 (docs/developers/testing.md, "A wait polls as a client would").
 */
export async function untilStatus<T>(get: StatusGet, path: string, done: (body: any) => T | undefined, timeoutMs = 240_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  for (;;) {
    const s = await get(path);
    const value = s.status === 200 ? done(s.body) : undefined;
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs / 1000} s for ${path}: ${s.status} ${s.text ?? JSON.stringify(s.body)}`);
    await sleep(s.status === 429 ? Math.max(1, Number(s.body?.retry_after ?? 1)) * 1000 : 500);
  }
}

/** The batch id of submission `key` once intake wrote its items (polled as `untilStatus` does). */
export const batchOf = (t: TestTwin, token: string, key: string, timeoutMs?: number) =>
  untilStatus((p) => t.call('GET', p, { token }), `/v1/couriers/default/webhook/${key}/status`, (b) => (b.batch_id ? (b.batch_id as string) : undefined), timeoutMs);

/** Waits until batch `batchId` completed (polled as `untilStatus` does); a failed run fails it at once. */
export const completedBatch = (t: TestTwin, token: string, batchId: string, timeoutMs?: number) =>
  untilStatus((p) => t.call('GET', p, { token }), `/v1/couriers/manifests/${batchId}/pipeline-status`, (b) => {
    if (b.data?.status === 'failed') throw new Error(`batch ${batchId} failed: ${JSON.stringify(b.data).slice(0, 500)}`);
    return b.data?.status === 'completed' ? (b.data as Record<string, unknown>) : undefined;
  }, timeoutMs);
