/**
 * The benches' manifests (bench:pipeline, bench:downloads): items as couriers send them, to one
 * consignee or to distinct people, with valid CUILs.
 */
import { readFileSync } from 'node:fs';
import { item as testItem } from '#support/manifests';
import { cuitCheckDigit } from '#core/customs/tax-id';

/** Descriptions as couriers send them (the labeled evaluation set), cycled. */
export const descriptions = readFileSync(new URL('../test/fixtures/tariff-labeled.csv', import.meta.url), 'utf8')
  .trim()
  .split('\n')
  .slice(1)
  .map((line) => (line.startsWith('"') ? line.slice(1, line.lastIndexOf('"')) : line.slice(0, line.lastIndexOf(','))));

/** A valid CUIL for person `n` (prefix 20, the DNI, its check digit). */
function cuil(n: number): string {
  const first10 = `20${String(10_000_000 + n).padStart(8, '0')}`;
  return first10 + cuitCheckDigit(first10);
}

export type Shape = { kind: 'one-consignee'; person: number } | { kind: 'distinct'; firstPerson: number };

/**
 * Item `i` of a run. Distinct: two items per shipment (items 2k-1 and 2k share an AWB and a
 * consignee, as an order of two products does), a different person per shipment. One consignee:
 * every item its own AWB, all to the same person.
 */
function item(i: number, run: string, shape: Shape) {
  const shipment = shape.kind === 'distinct' ? Math.ceil(i / 2) : i;
  const person = shape.kind === 'distinct' ? shape.firstPerson + shipment : shape.person;
  return testItem(i, {
    awbNumber: `${run}-${String(shipment).padStart(7, '0')}`,
    itemIdempotencyKey: `${run}-line-${i}`,
    consigneeName: `Consignee ${person}`,
    itemDescription: descriptions[i % descriptions.length],
    hsCode: undefined,
    consigneeIdNumber: cuil(person),
    fobValueUsd: 5 + (i % 150),
  });
}
export const items = (n: number, run: string, shape: Shape, from = 1) => Array.from({ length: n }, (_, k) => item(from + k, run, shape));

