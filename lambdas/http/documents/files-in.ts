import * as v from 'valibot';
import { BadRequest, PayloadTooLarge, UnsupportedMediaType, ValidationFailed } from '#core/errors';
import { maxDocumentBytes } from '#core/documents/files';
import { parseMultipart } from '../kit/multipart';
import { validate } from '../kit/validate';
import { checkJsonValue, isJsonMediaType, parseJson, validateBody } from '../kit/json-body';
import type { IncomingFile } from '#services/documents/documents';

export { idempotencyKey } from '../kit/idempotency-key';

/** Standard base64 (a data: URL prefix and line breaks are tolerated); anything else is 400. */
export function decodeBase64(value: string): Buffer {
  const body = value.replace(/^data:[\w.+-]+\/[\w.+-]+;base64,/, '').replace(/[\r\n\s]/g, '');
  if (body.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(body)) throw new BadRequest('file_base64 is not valid base64.');
  const bytes = Buffer.from(body, 'base64');
  if (bytes.length > maxDocumentBytes) throw new PayloadTooLarge('The file is larger than 10 MB.');
  return bytes;
}

/**
 * Reads a file plus form fields from multipart/form-data (`file`) or JSON (`file_base64` +
 * `filename`), validating the fields with `schema` (field names as the client sent them).
 */
export async function readUpload<S extends v.GenericSchema, J extends v.GenericSchema>(
  raw: Buffer | undefined,
  contentType: string | undefined,
  schemas: { fields: S; json: J },
): Promise<{ fields: v.InferOutput<S>; file: IncomingFile }> {
  const media = contentType?.split(';')[0].trim().toLowerCase();
  if (media === 'multipart/form-data') {
    const form = await parseMultipart(raw ?? Buffer.alloc(0), contentType!, { fileBytes: maxDocumentBytes });
    const file = form.files.find((f) => f.field === 'file');
    const fields: Record<string, unknown> = { ...form.fields };
    if (typeof fields.metadata === 'string') {
      fields.metadata = parseJsonField(fields.metadata);
      // The JSON body rules, with paths and depth counted as if `metadata` had come in a JSON body.
      checkJsonValue(fields.metadata, ['metadata']);
    }
    const parsed = validate(schemas.fields, fields);
    if (!file) throw new ValidationFailed({ file: ['A file is required (multipart field "file", or file_base64 with filename).'] });
    return { fields: parsed, file: { fileName: file.fileName, bytes: file.data } };
  }
  // JSON as the kit reads it everywhere else: application/json or a +json type.
  if (isJsonMediaType(contentType)) {
    const parsed = validateBody(schemas.json, parseJson(raw, contentType)) as Record<string, unknown>;
    const bytes = decodeBase64(parsed.file_base64 as string);
    const { file_base64: _f, filename, ...fields } = parsed;
    return { fields: fields as v.InferOutput<S>, file: { fileName: filename as string, bytes } };
  }
  throw new UnsupportedMediaType('Send multipart/form-data with a "file" field, or JSON with file_base64 and filename.');
}

/** A multipart `metadata` field holds JSON text; what is not JSON stays a string and fails validation. */
function parseJsonField(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
