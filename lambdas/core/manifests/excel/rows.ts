/** One cell: text, number (dates are Excel serial numbers), boolean, or null when empty. */
export type Cell = string | number | boolean | null;

/** One non-blank row of a workbook's first sheet, as infra/spreadsheet.ts reads it. */
export interface Row {
  /** The row's number as the spreadsheet shows it (1-based). */
  readonly row: number;
  /** Cells from the first column of the sheet's used range; at most `spreadsheetLimits.maxColumns`. */
  readonly cells: readonly Cell[];
}
