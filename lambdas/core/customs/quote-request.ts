/** The regimes a quote may be asked for; `auto` lets the classification rules decide, as the pipeline does. */
export const quoteRegimes = ['auto', 'personal', 'commercial'] as const;

/**
 * A landed-cost quote request as `POST /v1/customs/calculate` has validated it (CalculateBody in
 * http/customs/schemas.ts, with its defaults applied): one product line (docs/merchants/landed-cost.md).
 */
export interface QuoteRequest {
  destination_country: string;
  origin_country: string;
  currency: string;
  declared_value: number;
  weight?: number;
  hs_code?: string;
  description?: string;
  freight?: number;
  insurance?: number;
  quantity?: number;
  regime: (typeof quoteRegimes)[number];
  compare_regimes: boolean;
}
