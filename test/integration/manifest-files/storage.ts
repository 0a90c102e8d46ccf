import { sampleXls, sampleXlsx } from '#bin/sample-files';
import { multipart } from '#support/files';
import type { TestTwin } from '#support/twin';

/** Real files of each type a stored manifest may be. */
export const json = (content: unknown = { manifest: 'M-1', items: [{ awb: '176-12345675' }] }) => Buffer.from(JSON.stringify(content), 'utf8');
export const xlsx = () => sampleXlsx();
export const xls = () => sampleXls();

/** A macro-enabled workbook: the OOXML package of .xlsm (its workbook part typed macroEnabled). */
export const xlsm = () => sampleXlsx({ macroEnabled: true });

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
