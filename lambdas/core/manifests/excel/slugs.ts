import type { ExcelLayout } from './layout';
import { bfe } from './layouts/bfe';
import { golucky } from './layouts/golucky';
import { lion360 } from './layouts/lion360';
import { mailamericas } from './layouts/mailamericas';
import { mercadolibre } from './layouts/mercadolibre';
import { n24 } from './layouts/n24';
import { nohs } from './layouts/nohs';

/**
 * The `{courier}` values of POST /v1/couriers/{courier}/manifests/webhook that take an Excel
 * upload, one partner layout each (spec 2.5). `default` is not among them: it takes JSON.
 */
export const excelSlugs = ['bfe', 'golucky', '360lion', 'n24', 'nohs', 'mercadolibre', 'mailamericas'] as const;
export type ExcelSlug = (typeof excelSlugs)[number];

const layouts: Record<ExcelSlug, ExcelLayout> = {
  bfe,
  golucky,
  '360lion': lion360,
  n24,
  nohs,
  mercadolibre,
  mailamericas,
};

export function isExcelSlug(slug: string): slug is ExcelSlug {
  return (excelSlugs as readonly string[]).includes(slug);
}

/** The layout a slug selects; undefined for `default` and for unknown slugs. */
export function layoutFor(slug: string): ExcelLayout | undefined {
  return isExcelSlug(slug) ? layouts[slug] : undefined;
}
