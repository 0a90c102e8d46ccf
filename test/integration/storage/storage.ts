import { sampleXls, sampleXlsx, zip } from '../../../bin/sample-files';
import { multipart } from '../../support/files';
import type { TestTwin } from '../../support/twin';

/** Real files of each type a stored manifest may be. */
export const json = (content: unknown = { manifest: 'M-1', items: [{ awb: '176-12345675' }] }) => Buffer.from(JSON.stringify(content), 'utf8');
export const xlsx = () => sampleXlsx();
export const xls = () => sampleXls();

/** A macro-enabled workbook: the OOXML package of .xlsm (its workbook part typed macroEnabled). */
export function xlsm(): Buffer {
  const ns = 'http://schemas.openxmlformats.org';
  return zip({
    '[Content_Types].xml':
      `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="${ns}/package/2006/content-types">` +
      '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
      '<Default Extension="xml" ContentType="application/xml"/>' +
      '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.ms-excel.sheet.macroEnabled.main+xml"/></Types>',
    '_rels/.rels': `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="${ns}/package/2006/relationships"><Relationship Id="rId1" Type="${ns}/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    'xl/workbook.xml': `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="${ns}/spreadsheetml/2006/main"><sheets/></workbook>`,
  });
}

/** POST /v1/manifests/storage/upload as multipart/form-data. */
export async function upload(
  t: TestTwin,
  token: string,
  fields: Record<string, string>,
  file?: { name: string; data: Buffer },
  headers: Record<string, string> = {},
) {
  const form = await multipart(fields, file);
  return t.call('POST', '/v1/manifests/storage/upload', { token, raw: form.body, headers: { 'content-type': form.contentType, ...headers } });
}
