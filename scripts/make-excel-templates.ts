/**
 * Writes docs/partners/templates/<slug>.xlsx, one empty template per Excel slug, from the slug's
 * layout (lambdas/core/manifests/excel/layouts/<slug>.json): the first sheet holds the header row
 * in the layout's own words (the first header each column accepts, "Destinatario" for bfe), with
 * the required columns marked; a second sheet, which the service does not read, says what each
 * column fills. Run after changing a layout and commit the files:
 *
 *   npx tsx scripts/make-excel-templates.ts
 *
 * test/integration/manifests/excel-templates.test.ts fails while a committed template's header
 * differs from its layout, and sends each template, filled with one row, to its slug.
 */
import ExcelJS from 'exceljs';
import { mkdirSync, writeFileSync } from 'node:fs';
import { excelSlugs, layoutFor } from '#core/manifests/excel/slugs';
import type { ExcelLayout } from '#core/manifests/excel/layout';

export const templatesDir = new URL('../docs/partners/templates/', import.meta.url).pathname;

export interface TemplateColumn {
  header: string;
  /** The item field of spec 2.5 it fills, or the part of a combined field. */
  fills: string;
  required: boolean;
}

/** The template's columns: every column of the layout, under its first header, in the layout's order. */
export function templateColumns(layout: ExcelLayout): TemplateColumn[] {
  const required = new Set(layout.required.map((group) => group[0]));
  return layout.columns.map((c) => {
    const name = c.field ?? c.part!;
    const combined = layout.combine?.find((k) => k.parts.includes(c.part ?? ''));
    const fills = c.field && c.part ? `${c.field} (and ${combined?.field ?? c.part})` : c.field ?? `${combined?.field ?? '?'} (${combined?.op} of ${combined?.parts.join(', ')})`;
    return { header: c.headers[0], fills, required: required.has(name) || (c.part !== undefined && required.has(c.part)) };
  });
}

/** The template of one layout, as .xlsx bytes. */
export async function templateWorkbook(layout: ExcelLayout): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  wb.creator = 'Despacho';
  wb.created = wb.modified = new Date(Date.UTC(2026, 0, 1));
  const columns = templateColumns(layout);
  const sheet = wb.addWorksheet('Manifest', { views: [{ state: 'frozen', ySplit: 1 }] });
  sheet.getRow(1).values = columns.map((c) => c.header);
  sheet.getRow(1).font = { bold: true };
  columns.forEach((c, i) => {
    sheet.getColumn(i + 1).width = Math.max(12, c.header.length + 4);
    if (c.required) sheet.getCell(1, i + 1).fill = { type: 'pattern', pattern: 'solid', fgColor: { argb: 'FFFFE699' } };
  });
  const about = wb.addWorksheet('About (not read)');
  about.addRows([
    [`${layout.partner} layout: send this workbook to POST /api/v1/couriers/${layout.slug}/manifests/webhook (multipart/form-data, field "file").`],
    ['Only the first sheet is read. One row per item; the shaded headers are required (one of each group). See docs/partners/excel-layouts.md.'],
    [],
    ['Column', 'Fills (spec 2.5)', 'Required'],
    ...columns.map((c) => [c.header, c.fills, c.required ? 'yes' : '']),
  ]);
  about.getRow(4).font = { bold: true };
  about.getColumn(1).width = 28;
  about.getColumn(2).width = 40;
  return Buffer.from(await wb.xlsx.writeBuffer());
}

if (import.meta.url === `file://${process.argv[1]}`) {
  mkdirSync(templatesDir, { recursive: true });
  for (const slug of excelSlugs) {
    writeFileSync(`${templatesDir}${slug}.xlsx`, await templateWorkbook(layoutFor(slug)!));
    console.log(`wrote docs/partners/templates/${slug}.xlsx`);
  }
}
