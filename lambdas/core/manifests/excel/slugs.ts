import { layoutFrom, type ExcelLayout } from './layout';
import bfe from './layouts/bfe.json';
import golucky from './layouts/golucky.json';
import lion360 from './layouts/360lion.json';
import mailamericas from './layouts/mailamericas.json';
import mercadolibre from './layouts/mercadolibre.json';
import n24 from './layouts/n24.json';
import nohs from './layouts/nohs.json';

/**
 * The `{courier}` values of POST /v1/couriers/{courier}/manifests/webhook that take an Excel
 * upload, one partner layout each (spec 2.5). `default` is not among them: it takes JSON.
 */
export const excelSlugs = ['bfe', 'golucky', '360lion', 'n24', 'nohs', 'mercadolibre', 'mailamericas'] as const;
export type ExcelSlug = (typeof excelSlugs)[number];

const layouts: Record<ExcelSlug, ExcelLayout> = {
  bfe: layoutFrom(bfe),
  golucky: layoutFrom(golucky),
  '360lion': layoutFrom(lion360),
  n24: layoutFrom(n24),
  nohs: layoutFrom(nohs),
  mercadolibre: layoutFrom(mercadolibre),
  mailamericas: layoutFrom(mailamericas),
};

export function isExcelSlug(slug: string): slug is ExcelSlug {
  return (excelSlugs as readonly string[]).includes(slug);
}

/** The layout a slug selects; undefined for `default` and for unknown slugs. */
export function layoutFor(slug: string): ExcelLayout | undefined {
  return isExcelSlug(slug) ? layouts[slug] : undefined;
}
