/**
 * The risk rules' codes (risk-rules.ts), on their own so the answers' schemas name them without
 * bundling the rules.
 */
export type RiskCode = 'split_over_courier_limit' | 'split_over_franchise' | 'split_over_units' | 'under_valuation' | 'quota_ran_out_in_flight' | 'split_across_couriers';

export const riskCodes: readonly RiskCode[] = ['split_over_courier_limit', 'split_over_franchise', 'split_over_units', 'under_valuation', 'quota_ran_out_in_flight', 'split_across_couriers'];
