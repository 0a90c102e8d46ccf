import type { EntityItem } from 'electrodb';
import { defineEntity, service, key, required, optional, keyless } from '../entity';

/** A product of an account, one per SKU (see products.ts). */
export const products = defineEntity({
  model: { entity: 'product', version: '1', service },
  attributes: {
    ...required({ accountId: 'number', productId: 'number', sku: 'string', name: 'string' }),
    /** Undefined while the merchant does not track this SKU's stock. */
    ...optional({ stock: 'number', threshold: 'number', warehouseId: 'number', warehouseName: 'string', below: 'boolean' }),
    ...optional({ updatedAt: 'string' }),
  },
  indexes: {
    bySku: { pk: key('pk', 'PRODUCT#${accountId}#${sku}', keyless), sk: key('sk', 'PRODUCT', keyless) },
    byAccount: { index: 'gsi1', pk: key('gsi1pk', 'ACCOUNT#${accountId}#PRODUCTS', keyless), sk: key('gsi1sk', '${sku}', keyless) },
  },
} as const);

/** An item of the entity as a read answers it. */
export type ProductItem = EntityItem<ReturnType<typeof products>>;
