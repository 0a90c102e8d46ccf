import { randomUUID } from 'node:crypto';

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
