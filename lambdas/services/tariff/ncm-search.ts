import { vatAt } from '#core/customs/tariff-rates';
import { argentineDate } from '#core/customs/tax-rules';
import { indexNomenclature, searchNcm, type NcmSearchIndex } from '#core/tariff/ncm-search';
import { now } from '#infra/clock';
import { loadTariffTable, type TariffTable } from '#infra/tariff/table-source';

/** One row of the picker's answer: the NCM, its wording and its rates (percent, never a probability). */
export interface NcmSearchRow {
  ncm_code: string;
  description: string;
  description_en: string | null;
  /** Import duty of the NCM, percent. */
  duty_rate: number;
  /** Where the duty rate comes from: `imported` (the operator's table) or `unverified` (the built-in estimate). */
  duty_rate_status: 'verified' | 'unverified' | 'imported';
  /** VAT of the NCM on today's Argentine date, percent (21, 10.5 or 0). */
  vat_rate: number;
}

/**
 * The index of the table in force, built once per table object: once per cold start, and again only
 * after an import (table-source.ts keeps the object while the table's version is unchanged).
 */
let indexed: { rows: TariffTable['rows']; index: NcmSearchIndex } | undefined;

function indexOf(table: TariffTable): NcmSearchIndex {
  if (indexed?.rows !== table.rows) indexed = { rows: table.rows, index: indexNomenclature(table.rows) };
  return indexed.index;
}

/** GET /v1/customs/tariff/ncm: the table in force searched by words or code prefix, the first `limit` rows. */
export async function searchNomenclature(q: string, limit: number) {
  const table = await loadTariffTable();
  const found = searchNcm(indexOf(table), q, limit);
  const date = argentineDate(now());
  const data: NcmSearchRow[] = found.hits.map(({ row }) => ({
    ncm_code: row.ncm,
    description: row.description,
    description_en: row.description_en ?? null,
    duty_rate: row.duty_rate,
    duty_rate_status: table.source === 'imported' ? 'imported' : (row.duty_source?.status ?? 'unverified'),
    vat_rate: vatAt(row.ncm, date).rate,
  }));
  return {
    data,
    meta: {
      q,
      kind: found.query.kind,
      total: found.total,
      limit,
      table: table.source,
      table_version: table.version,
    },
  };
}
