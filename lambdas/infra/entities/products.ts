/**
 * Products of an account, one per SKU (`PRODUCT#<account>#<sku>`): the integer `product_id` its
 * order lines carry and, when the merchant tracks it, the stock level, its low-stock threshold and
 * the warehouse it sits in. Shipping an order takes its quantities off the stock in the same
 * transaction as the shipment; `below` remembers that a fall under the threshold was announced,
 * so `inventory.low_stock` fires once per fall, by a conditional write.
 */
import { isConditionalFailure, type TransactItem, type TransactUpdate } from './entity';
import { products, type ProductItem } from './products/product';
import { nextIds } from './counters';
import { batchGetAll } from '../batch-get';
/** Rows written by hand before the entity carry no ElectroDB markers: reads do not ask for them. */
const read = { ignoreOwnership: true } as const;

export type ProductRecord = ProductItem;

export async function getProducts(accountId: number, skus: string[]): Promise<Map<string, ProductRecord>> {
  // batchGetAll asks again for what DynamoDB leaves unprocessed; the entity gives the keys and reads the rows (parse ignores ownership).
  const items = await batchGetAll([...new Set(skus)].map((sku) => products().get({ accountId, sku }).params<{ Key: Record<string, unknown> }>().Key));
  return new Map(items.map((Item) => products().parse({ Item }).data!).map((p) => [p.sku, p]));
}

/** The product of each SKU, made on first sight (a conditional create: two orders never make two). */
export async function productsFor(accountId: number, lines: { sku: string; name: string }[]): Promise<Map<string, ProductRecord>> {
  const known = await getProducts(accountId, lines.map((l) => l.sku));
  const missing = [...new Map(lines.filter((l) => !known.has(l.sku)).map((l) => [l.sku, l])).values()];
  if (!missing.length) return known;
  const first = await nextIds('product', missing.length);
  await Promise.all(
    missing.map(async (line, i) => {
      const record: ProductRecord = { accountId, productId: first + i, sku: line.sku, name: line.name };
      try {
        await products().create(record).go();
        known.set(line.sku, record);
      } catch (err) {
        if (!isConditionalFailure(err)) throw err;
      }
    }),
  );
  const raced = missing.filter((l) => !known.has(l.sku)).map((l) => l.sku);
  if (raced.length) for (const [sku, p] of await getProducts(accountId, raced)) known.set(sku, p);
  return known;
}

/** Sets a SKU's tracked stock, threshold and warehouse (making the product if new). */
export async function setStock(
  accountId: number,
  sku: string,
  s: { name?: string; stock: number; threshold: number; warehouseId: number; warehouseName: string },
  at: string,
): Promise<ProductRecord> {
  const [product] = (await productsFor(accountId, [{ sku, name: s.name ?? sku }])).values();
  const res = await products()
    .patch({ accountId, sku })
    .set({ stock: s.stock, threshold: s.threshold, warehouseId: s.warehouseId, warehouseName: s.warehouseName, name: s.name ?? product.name, updatedAt: at })
    .go({ response: 'all_new' });
  return res.data;
}

/** The writes that take shipped quantities off tracked stock, for the shipment's transaction. */
export function stockDecrements(accountId: number, lines: { sku: string; quantity: number }[], tracked: Map<string, ProductRecord>): TransactItem[] {
  const bySku = new Map<string, number>();
  for (const l of lines) if (tracked.get(l.sku)?.stock !== undefined) bySku.set(l.sku, (bySku.get(l.sku) ?? 0) + l.quantity);
  return [...bySku].map(([sku, quantity]) => ({
    Update: products()
      .update({ accountId, sku })
      .add({ stock: -quantity })
      .where(({ stock }, { exists }) => exists(stock))
      .params<TransactUpdate>(),
  }));
}

/**
 * After stock changed: each SKU now under its threshold that was not yet announced is marked
 * (conditionally, so once per fall) and returned; each SKU back at or over it is unmarked.
 */
export async function markLowStock(accountId: number, skus: string[]): Promise<ProductRecord[]> {
  const fallen: ProductRecord[] = [];
  for (const sku of new Set(skus)) {
    try {
      const res = await products()
        .patch({ accountId, sku })
        .set({ below: true })
        .where(({ stock, threshold, below }, { notExists, eq, name }) => `${name(stock)} < ${name(threshold)} AND (${notExists(below)} OR ${eq(below, false)})`)
        .go({ response: 'all_new' });
      fallen.push(res.data);
    } catch (err) {
      if (!isConditionalFailure(err)) throw err;
      await products()
        .patch({ accountId, sku })
        .set({ below: false })
        .where(({ stock, threshold, below }, { eq, name }) => `${name(stock)} >= ${name(threshold)} AND ${eq(below, true)}`)
        .go()
        .catch((e) => {
          if (!isConditionalFailure(e)) throw e;
        });
    }
  }
  return fallen;
}

export async function listProducts(accountId: number): Promise<ProductRecord[]> {
  return (await products().query.byAccount({ accountId }).go({ pages: 'all', ...read })).data;
}
