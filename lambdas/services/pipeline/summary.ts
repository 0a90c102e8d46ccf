import { sumCents, toCents, toNumber } from '../../core/customs/money';
import type { ProcessedProduct } from '../../core/manifests/views';

/** The manifest summary of spec 2.6 from every processed product of the batch, money summed in cents. */
export function summarize(products: readonly ProcessedProduct[]) {
  const count = (regime: string) => products.filter((p) => p.regime === regime).length;
  return {
    total_awbs: new Set(products.map((p) => p.awb_number)).size,
    total_products: products.length,
    personal_items: count('P'),
    commercial_items: count('C'),
    prohibited_items: count('X'),
    amount_to_pay: toNumber(sumCents(products.map((p) => toCents(p.amount_to_pay ?? 0)))),
    currency: 'USD',
  };
}
