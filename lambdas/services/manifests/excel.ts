import { rowsToSubmission } from '#core/manifests/excel/convert';
import type { ExcelLayout } from '#core/manifests/excel/layout';
import { readSheetRows } from '#infra/spreadsheet';

/**
 * The submission input of spec 2.5 from a partner's workbook, read in the sandboxed spreadsheet
 * reader, and the manifest root fields sent beside it; still to be validated.
 */
export async function workbookSubmission(layout: ExcelLayout, workbook: Uint8Array, fields: Readonly<Record<string, string | undefined>>): Promise<unknown> {
  return rowsToSubmission(layout, await readSheetRows(workbook), fields);
}
