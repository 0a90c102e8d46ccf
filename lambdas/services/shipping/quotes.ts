import { createHash } from 'node:crypto';
import { ServiceError, ValidationFailed } from '#core/errors';
import type { CarrierRate } from '#core/shipping/carrier';
import { externalCarriers, type ExternalCarrier } from '#core/shipping/carrier-accounts';
import { inToCm, lbToKg } from '#core/shipping/units';
import { carrierFor } from '#infra/carriers';
import { carrierCredentials } from '#infra/carrier-credentials';
import { now } from '#infra/clock';
import { quoteLandedCost } from '../customs/quote';
import type { Breakdown } from '#core/customs/calculate';

/**
 * Shipping quotes (`POST /v1/shipping/quotes`, issue 18 item 4): the rates of the connected
 * carriers (or the ones named) for a route and packages, asked at once, cheapest first. A carrier
 * that fails is listed in `carrier_errors` with its status and message; the others still answer.
 * With `include_ddp` and an AR destination each rate also carries the duties and taxes of the
 * customs landed-cost calculation (`POST /v1/customs/calculate`'s, with the rate as freight) and
 * the total landed cost. Nothing is stored: `quote_id` is a digest of the question and the answer.
 */
export interface QuoteInput {
  origin: { country: string; postal_code: string; city: string; state: string };
  destination: { country: string; postal_code: string; city: string; state: string };
  packages: { weight: number; length: number; width: number; height: number; weight_unit: 'kg' | 'lb'; dimension_unit: 'cm' | 'in' }[];
  declared_value?: number;
  currency: string;
  carriers?: ExternalCarrier[];
  include_ddp: boolean;
  description?: string;
  hs_code?: string;
}

export interface QuotedRate {
  carrier: string;
  service: string;
  service_name: string;
  transit_days: number | null;
  delivery_date: string | null;
  shipping_cost: { amount: number; currency: string };
  duties_and_taxes?: Breakdown;
  total_landed_cost?: number;
}

export interface ShippingQuote {
  quote_id: string;
  valid_until: string;
  currency: string;
  rates: QuotedRate[];
  carrier_errors: { carrier: string; status: number; error: string; message: string }[];
}

/** How long the carriers' rates are good for: they change with fuel surcharges, at most daily. */
export const quoteValidityMs = 24 * 3_600_000;

const cents = (n: number) => Math.round(n * 100);

export async function shippingQuote(accountId: number, input: QuoteInput): Promise<ShippingQuote> {
  const ddp = input.include_ddp && input.destination.country === 'AR';
  if (ddp) {
    const problems: Record<string, string[]> = {};
    if (input.declared_value === undefined) problems.declared_value = ['include_ddp needs the declared value of the goods.'];
    if (!input.description && !input.hs_code) problems.hs_code = ['include_ddp needs hs_code or description (or both): the duties depend on the tariff code, classified from the description without one.'];
    if (Object.keys(problems).length) throw new ValidationFailed(problems);
  }
  const connected = new Set((await carrierCredentials().list(accountId)).map((c) => c.carrier));
  const asked = input.carriers ?? externalCarriers.filter((c) => connected.has(c));
  if (asked.length === 0) throw new ValidationFailed({ carriers: ['No carrier account is connected; connect one with PUT /v1/shipping/carriers/{carrier}.'] });
  const at = now();
  const packages = input.packages.map((p) => ({
    weight: p.weight_unit === 'lb' ? lbToKg(p.weight) : p.weight,
    length: p.dimension_unit === 'in' ? inToCm(p.length) : p.length,
    width: p.dimension_unit === 'in' ? inToCm(p.width) : p.width,
    height: p.dimension_unit === 'in' ? inToCm(p.height) : p.height,
  }));
  const declaredValue = input.declared_value !== undefined ? { amount: input.declared_value, currency: input.currency } : null;
  const rates: QuotedRate[] = [];
  const carrierErrors: ShippingQuote['carrier_errors'] = [];
  const answers = await Promise.all(
    asked.map(async (name) => {
      const carrier = carrierFor(name)!;
      try {
        const found: CarrierRate[] = await carrier.rate!({ accountId, shipDate: at.toISOString().slice(0, 10), origin: input.origin, destination: input.destination, packages, declaredValue });
        return { name, found };
      } catch (err) {
        if (!(err instanceof ServiceError)) throw err;
        const message = err instanceof ValidationFailed ? Object.values(err.errors).flat().join(' ') : err.message;
        return { name, error: { carrier: name, status: err.status, error: err.code, message } };
      }
    }),
  );
  for (const a of answers) {
    if (a.error) carrierErrors.push(a.error);
    for (const r of a.found ?? []) {
      rates.push({ carrier: a.name, service: r.service, service_name: r.serviceName, transit_days: r.transitDays, delivery_date: r.deliveryDate, shipping_cost: r.cost });
    }
  }
  if (ddp) {
    const kg = packages.reduce((s, p) => s + p.weight, 0);
    for (const r of rates) {
      // The landed cost is in USD; a rate in another currency gets none rather than a wrong one.
      if (r.shipping_cost.currency !== 'USD') continue;
      const customs = await quoteLandedCost(
        { destination_country: 'AR', origin_country: input.origin.country, currency: 'USD', declared_value: input.declared_value!, weight: Math.round(kg * 1000) / 1000, freight: r.shipping_cost.amount, regime: 'auto', compare_regimes: false,
          ...(input.description ? { description: input.description } : {}),
          ...(input.hs_code ? { hs_code: input.hs_code } : {}) },
        at,
      );
      r.duties_and_taxes = customs.duties_and_taxes;
      r.total_landed_cost = customs.total_landed_cost;
    }
  }
  const cost = (r: QuotedRate) => cents(r.total_landed_cost ?? r.shipping_cost.amount);
  rates.sort((a, b) => cost(a) - cost(b) || cents(a.shipping_cost.amount) - cents(b.shipping_cost.amount) || a.carrier.localeCompare(b.carrier) || a.service.localeCompare(b.service));
  const digest = createHash('sha256').update(JSON.stringify({ accountId, input, rates, carrierErrors, at: at.toISOString() })).digest('hex');
  return { quote_id: `qt_${digest.slice(0, 32)}`, valid_until: new Date(at.getTime() + quoteValidityMs).toISOString(), currency: input.currency, rates, carrier_errors: carrierErrors };
}
