import { describe, expect, it } from 'vitest';
import { ServiceError, ValidationFailed } from '#core/errors';
import { ManifestSubmission } from '#core/manifests/submission';
import { readExcelSubmission } from '#http/manifests/excel-in';
import { validate } from '#http/kit/validate';
import { multipart, pdf } from '#support/files';
import { workbook } from '#support/workbooks';

const sheet = workbook([
  ['Guía Hija', 'Destinatario', 'País Origen', 'Valor FOB USD'],
  ['BFE0001', 'Ana Pérez', 'CN', 10],
]);
const fields = { mawbNumber: '176-12345675', flightNumber: 'AR1303' };

async function failureOf(promise: Promise<unknown>): Promise<ServiceError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ServiceError);
  return err as ServiceError;
}

describe('readExcelSubmission', () => {
  it('reads a multipart workbook upload with form fields into the submission of spec 2.5', async () => {
    const { body, contentType } = await multipart(fields, { name: 'manifiesto.xlsx', data: sheet });
    const submission = validate(ManifestSubmission, await readExcelSubmission(body, contentType, 'bfe'));
    expect(submission).toMatchObject({
      mawbNumber: '176-12345675',
      manifestNumber: '176-12345675',
      flightNumber: 'AR1303',
      items: [{ awbNumber: 'BFE0001', consigneeName: 'Ana Pérez', originCountry: 'CN', fobValueUsd: 10 }],
    });
  });

  it('accepts a workbook named .xlsm, and extensions in capitals', async () => {
    for (const name of ['manifiesto.xlsm', 'MANIFIESTO.XLSX']) {
      const { body, contentType } = await multipart(fields, { name, data: sheet });
      await expect(readExcelSubmission(body, contentType, 'bfe')).resolves.toMatchObject({ items: [{ awbNumber: 'BFE0001' }] });
    }
  });

  it('requires the workbook in the file field', async () => {
    const { body, contentType } = await multipart(fields);
    const err = await failureOf(readExcelSubmission(body, contentType, 'bfe'));
    expect(err).toBeInstanceOf(ValidationFailed);
    expect((err as ValidationFailed).errors).toEqual({ file: ['A workbook is required (multipart field "file", .xlsx, .xlsm or .xls).'] });
  });

  it('refuses a file not named .xlsx, .xlsm or .xls with a 422 on file', async () => {
    const { body, contentType } = await multipart(fields, { name: 'manifiesto.csv', data: sheet });
    const err = await failureOf(readExcelSubmission(body, contentType, 'bfe'));
    expect((err as ValidationFailed).errors).toEqual({ file: ['Must be an Excel workbook named .xlsx, .xlsm or .xls.'] });
  });

  it('refuses a file named .xlsx that is not a workbook with a 422 on file', async () => {
    const { body, contentType } = await multipart(fields, { name: 'manifiesto.xlsx', data: pdf() });
    const err = await failureOf(readExcelSubmission(body, contentType, 'bfe'));
    expect(err.status).toBe(422);
    expect((err as ValidationFailed).errors).toEqual({ file: ['The file is not an Excel workbook (.xlsx, .xlsm or .xls).'] });
  });

  it('answers 422 on file to a body that is not multipart, pointing JSON to the default slug', async () => {
    const err = await failureOf(readExcelSubmission(Buffer.from('{"mawbNumber":"1","items":[]}'), 'application/json', 'golucky'));
    expect(err).toBeInstanceOf(ValidationFailed);
    expect(err.status).toBe(422);
    expect((err as ValidationFailed).errors.file[0]).toContain('Send JSON manifests to the `default` slug.');
    expect(err.message).toContain('Send JSON manifests to the `default` slug.');
  });

  it('refuses a slug that has no Excel layout with a 422 on courier', async () => {
    const { body, contentType } = await multipart(fields, { name: 'manifiesto.xlsx', data: sheet });
    const err = await failureOf(readExcelSubmission(body, contentType, 'default'));
    expect((err as ValidationFailed).errors.courier[0]).toContain('not an Excel slug');
  });
});
