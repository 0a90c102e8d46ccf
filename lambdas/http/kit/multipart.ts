import busboy from 'busboy';
import { BadRequest, PayloadTooLarge, ServiceError, UnsupportedMediaType, ValidationFailed } from '#core/errors';
import { humanSize } from '#core/documents/files';

export interface MultipartLimits {
  /** Largest file, in bytes; a larger one -> 413. */
  fileBytes: number;
  /** Most files in one body (default 1); more -> 400. */
  files?: number;
  /** Most non-file fields (default 20); more -> 400. */
  fields?: number;
  /** Longest field value, in bytes (default 64 KiB); longer -> 422 on that field. */
  fieldBytes?: number;
}

export interface MultipartFile {
  /** The form field the file came in. */
  field: string;
  /** As the client sent it (UTF-8, path removed by the parser): sanitize before storing or showing. */
  fileName: string;
  /** As the client declared it: never trust it, inspect the bytes. */
  mimeType: string;
  data: Buffer;
}

export interface MultipartBody {
  fields: Record<string, string>;
  files: MultipartFile[];
  /** Names of the fields that came after the first file (S3's POST Object ignores those). */
  fieldsAfterFile: string[];
}

/**
 * Parses a whole `multipart/form-data` body (the Lambda event already holds every byte).
 * Malformed bodies (no boundary, cut short, bad part headers) and too many parts are 400; a file
 * over `fileBytes` is 413; a field over `fieldBytes` is 422 on that field; a body that is not
 * multipart/form-data at all is 415. A repeated field keeps its last value. A file input left
 * empty by a browser (no name, no bytes) is not a file.
 */
export function parseMultipart(body: Buffer, contentType: string, limits: MultipartLimits): Promise<MultipartBody> {
  const mediaType = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (mediaType !== 'multipart/form-data') {
    return Promise.reject(new UnsupportedMediaType('Send the body as multipart/form-data.'));
  }
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { 'content-type': contentType },
      defParamCharset: 'utf8',
      // busboy marks a part truncated when it reaches its limit, even if it ends right there:
      // one byte more lets a file of exactly `fileBytes` through.
      limits: {
        fileSize: limits.fileBytes + 1,
        files: limits.files ?? 1,
        fields: limits.fields ?? 20,
        fieldSize: (limits.fieldBytes ?? 64 * 1024) + 1,
      },
    });
  } catch (err) {
    return Promise.reject(new BadRequest(`The multipart body is malformed: ${(err as Error).message}.`));
  }

  return new Promise((resolve, reject) => {
    const fields = new Map<string, string>();
    const files: MultipartFile[] = [];
    const fieldsAfterFile: string[] = [];
    let seenFile = false;
    let failure: ServiceError | undefined;
    let settled = false;
    const fail = (err: ServiceError) => {
      failure ??= err;
    };
    const finish = () => {
      if (settled) return;
      settled = true;
      if (failure) return reject(failure);
      resolve({ fields: Object.fromEntries(fields), files, fieldsAfterFile });
    };

    parser.on('field', (name: string, value: string, info: busboy.FieldInfo) => {
      if (info.nameTruncated) return fail(new BadRequest('A field name is too long.'));
      if (info.valueTruncated) return fail(new ValidationFailed({ [name]: ['Too long.'] }));
      if (seenFile) fieldsAfterFile.push(name);
      fields.set(name, value);
    });
    parser.on('file', (name: string, stream: NodeJS.ReadableStream & { truncated?: boolean }, info: busboy.FileInfo) => {
      seenFile = true;
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => fail(new PayloadTooLarge(`The file is larger than ${humanSize(limits.fileBytes)}.`)));
      stream.on('error', (err: Error) => fail(new BadRequest(`The multipart body is malformed: ${err.message}.`)));
      stream.on('end', () => {
        if (stream.truncated) return fail(new PayloadTooLarge(`The file is larger than ${humanSize(limits.fileBytes)}.`));
        const data = Buffer.concat(chunks);
        const fileName = info.filename ?? '';
        if (fileName === '' && data.length === 0) return;
        files.push({ field: name, fileName, mimeType: info.mimeType, data });
      });
    });
    parser.on('filesLimit', () => fail(new BadRequest(`Send at most ${limits.files ?? 1} file${(limits.files ?? 1) === 1 ? '' : 's'}.`)));
    parser.on('fieldsLimit', () => fail(new BadRequest(`Send at most ${limits.fields ?? 20} fields.`)));
    parser.on('partsLimit', () => fail(new BadRequest('Too many parts.')));
    parser.on('error', (err: Error) => {
      fail(new BadRequest(`The multipart body is malformed: ${err.message}.`));
      finish();
    });
    parser.on('close', finish);
    parser.end(body);
  });
}
