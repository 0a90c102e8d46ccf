import { sumCents, toCents, toNumber } from '../../core/customs/money';
import type { ProcessedResult } from '../../core/manifests/model';

/** The manifest summary of spec 2.6 from every processed item of the batch, money summed in cents. */
export function summarize(results: readonly { awb: string; result: ProcessedResult }[]) {
  const count = (regime: string) => results.filter((r) => r.result.regime === regime).length;
  return {
    total_awbs: new Set(results.map((r) => r.awb)).size,
    total_products: results.length,
    personal_items: count('P'),
    commercial_items: count('C'),
    prohibited_items: count('X'),
    amount_to_pay: toNumber(sumCents(results.map((r) => toCents(r.result.amount_to_pay ?? 0)))),
    currency: 'USD',
  };
}
