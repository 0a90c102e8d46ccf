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
