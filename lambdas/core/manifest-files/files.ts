import { isUtf8 } from 'node:buffer';
import { excelContainer, extensionOf, sanitizeFileName, type FileInspection } from '../documents/files';

/**
 * The files a stored manifest may be: JSON, or an Excel workbook (xlsx, xlsm, xls), checked by
 * extension and by content. Names, sizes and checksums follow the documents' rules (imported
 * from core/documents/files). Pure: no I/O, no AWS.
 */

/** Largest stored manifest file, through the API or through a presigned upload: 40 MiB (spec 8). */
export const maxManifestFileBytes = 40 * 1024 * 1024;

export const manifestFileExtensions = ['json', 'xlsx', 'xlsm', 'xls'] as const;
export type ManifestFileExtension = (typeof manifestFileExtensions)[number];

export const manifestFileMimeTypes: Record<ManifestFileExtension, string> = {
  json: 'application/json',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  xlsm: 'application/vnd.ms-excel.sheet.macroEnabled.12',
  xls: 'application/vnd.ms-excel',
};

export function isManifestFileExtension(ext: string): ext is ManifestFileExtension {
  return (manifestFileExtensions as readonly string[]).includes(ext);
}

/**
 * How far JSON content is checked. `parse`: the whole text is parsed (direct uploads, which are
 * small enough to parse in the request). `shape`: the text is UTF-8 and starts with `{` or `[`
 * and ends with the matching `}` or `]` (completed presigned uploads of up to 40 MB, which are
 * not parsed in full inside the request).
 */
export type JsonCheck = 'parse' | 'shape';

/**
 * Whether a file may be stored as a manifest file: its (sanitized) name has an allowed
 * extension, it is not empty, and its bytes are what the extension says. The MIME type is the
 * extension's, once the content agrees. The size limit is the caller's (413).
 */
export function inspectManifestFile(fileName: string, bytes: Buffer, json: JsonCheck): FileInspection {
  const extension = extensionOf(sanitizeFileName(fileName));
  if (!isManifestFileExtension(extension)) return refuse(`Allowed types: ${manifestFileExtensions.join(', ')}.`);
  if (bytes.length === 0) return refuse('The file is empty.');
  const problem = extension === 'json' ? jsonProblem(bytes, json) : excelProblem(extension, bytes);
  if (problem) return refuse(problem);
  return { ok: true, mimeType: manifestFileMimeTypes[extension], extension };
}

function refuse(message: string): FileInspection {
  return { ok: false, field: 'file', message };
}

function excelProblem(extension: Exclude<ManifestFileExtension, 'json'>, bytes: Buffer): string | undefined {
  const expected = extension === 'xls' ? 'ole' : 'ooxml';
  return excelContainer(bytes) === expected ? undefined : `The file's content is not an ${extension.toUpperCase()} workbook.`;
}

const bom = Buffer.from([0xef, 0xbb, 0xbf]);
const isJsonSpace = (b: number) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;

/** Why the bytes are not a JSON manifest (an object or an array in UTF-8), or undefined. */
function jsonProblem(bytes: Buffer, check: JsonCheck): string | undefined {
  const body = bytes.subarray(0, 3).equals(bom) ? bytes.subarray(3) : bytes;
  if (!isUtf8(body)) return "The file's content is not UTF-8 text.";
  let first = 0;
  while (first < body.length && isJsonSpace(body[first])) first++;
  let last = body.length - 1;
  while (last > first && isJsonSpace(body[last])) last--;
  if (first >= body.length) return 'The file holds only whitespace.';
  const open = body[first];
  const close = body[last];
  const shaped = (open === 0x7b && close === 0x7d) || (open === 0x5b && close === 0x5d);
  if (!shaped || last === first) return "The file's content is not a JSON object or array.";
  if (check === 'shape') return undefined;
  try {
    JSON.parse(body.toString('utf8'));
    return undefined;
  } catch (err) {
    return `The file's content is not valid JSON: ${(err as Error).message}.`;
  }
}
