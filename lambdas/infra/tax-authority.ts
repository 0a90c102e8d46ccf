import { checkTaxId } from '#core/customs/tax-id';
import { quotaYear, regimeRulesAt } from '#core/customs/regime-rules';
import { quotaHistoryCount, quotaOf } from './entities/quota';

/**
 * The tax authority, as a port: what the registry would say about a tax id (spec 2.7). The
 * default adapter answers from the service's own quota ledger; a registry connection is another
 * adapter with the same shape, installed with `useTaxAuthority` (as events and queues are).
 *
 * `current_quota.status` (the spec leaves its values open):
 * - 1: a valid tax id of a person; `quota` is the personal shipments left this calendar year.
 * - 2: a valid tax id that is not a person's (a company, or international purposes): there is no
 *   personal quota, `quota` is 0.
 * - 0: not a valid tax id (format, prefix or check digit); `quota` is 0.
 * `domicilio` (the fiscal address) comes only from a registry: the ledger answers ''.
 */
export interface TaxIdRecord {
  tax_id: string;
  tax_id_formatted: string;
  current_quota: { quota: number; status: number; domicilio: string };
  historical_records_count: number;
}

export const taxIdStatus = { invalid: 0, person: 1, notPerson: 2 } as const;

export interface TaxAuthority {
  lookup(taxId: string, at: Date): Promise<TaxIdRecord>;
}

export const ledgerTaxAuthority: TaxAuthority = {
  async lookup(taxId, at) {
    const check = checkTaxId(taxId);
    const digits = check.digits ?? taxId.replace(/\D/g, '');
    const base = { tax_id: digits, tax_id_formatted: check.formatted ?? digits };
    if (!check.valid) return { ...base, current_quota: { quota: 0, status: taxIdStatus.invalid, domicilio: '' }, historical_records_count: 0 };
    const history = await quotaHistoryCount(digits);
    if (check.kind !== 'person') {
      return { ...base, current_quota: { quota: 0, status: taxIdStatus.notPerson, domicilio: '' }, historical_records_count: history };
    }
    const limit = regimeRulesAt(at).personal_shipments_per_year;
    const year = await quotaOf(digits, quotaYear(at), limit);
    return { ...base, current_quota: { quota: year.remaining, status: taxIdStatus.person, domicilio: '' }, historical_records_count: history };
  },
};

let current: TaxAuthority = ledgerTaxAuthority;

export function taxAuthority(): TaxAuthority {
  return current;
}

export function useTaxAuthority(port: TaxAuthority): void {
  current = port;
}
