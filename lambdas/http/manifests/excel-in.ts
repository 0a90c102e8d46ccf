import { ValidationFailed } from '#core/errors';
import { excelSlugs, layoutFor } from '#core/manifests/excel/slugs';
import { workbookSubmission } from '#services/manifests/excel';
import { parseMultipart } from '../kit/multipart';

/** Largest workbook accepted; in AWS the 6 MB request limit comes first. */
export const maxWorkbookBytes = 10 * 1024 * 1024;

export const workbookExtensions = ['xlsx', 'xlsm', 'xls'] as const;

/**
 * Reads an Excel manifest upload for an Excel slug: multipart/form-data with the workbook in
 * `file` and the manifest root fields (mawbNumber, manifestNumber, ...) as form fields. Returns
 * the submission input of spec 2.5, still to be validated with ManifestSubmission (see
 * withSpreadsheetRows in core/manifests/excel/convert.ts to name rows in those errors).
 */
export async function readExcelSubmission(rawBody: Buffer, contentType: string | undefined, slug: string): Promise<unknown> {
  const layout = layoutFor(slug);
  if (!layout) throw new ValidationFailed({ courier: [`"${slug}" is not an Excel slug; Excel slugs are ${excelSlugs.join(', ')}.`] });
  const media = contentType?.split(';')[0].trim().toLowerCase();
  // A validation failure of the courier route, so 422 (spec 7.2 lists no 415 there), on `file`.
  if (media !== 'multipart/form-data') {
    const message = `The \`${slug}\` slug takes the ${layout.partner} workbook as multipart/form-data (field "file", plus mawbNumber and the other manifest fields). Send JSON manifests to the \`default\` slug.`;
    throw new ValidationFailed({ file: [message] }, message);
  }
  const form = await parseMultipart(rawBody, contentType!, { fileBytes: maxWorkbookBytes });
  const file = form.files.find((f) => f.field === 'file');
  if (!file) throw new ValidationFailed({ file: ['A workbook is required (multipart field "file", .xlsx, .xlsm or .xls).'] });
  const extension = /\.([^.]+)$/.exec(file.fileName)?.[1]?.toLowerCase();
  if (!extension || !(workbookExtensions as readonly string[]).includes(extension)) {
    throw new ValidationFailed({ file: ['Must be an Excel workbook named .xlsx, .xlsm or .xls.'] });
  }
  return workbookSubmission(layout, file.data, form.fields);
}
