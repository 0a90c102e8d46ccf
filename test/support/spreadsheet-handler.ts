import { readSheetRows } from '#infra/spreadsheet';

/** A stand-in Lambda handler for the bundle tests: reads the base64 workbook it is given. */
export async function handler(event: { workbook: string }) {
  return readSheetRows(Buffer.from(event.workbook, 'base64'));
}
