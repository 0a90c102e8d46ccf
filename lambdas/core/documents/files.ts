import { createHash } from 'node:crypto';

/**
 * Uploaded files of transport documents: the allowed types, checked by extension and by the
 * file's own bytes, safe file names, sizes and checksums. Pure: no I/O, no AWS.
 */

/** Largest document accepted, through the API or through a presigned upload: 10 MiB. */
export const maxDocumentBytes = 10 * 1024 * 1024;

export const documentExtensions = ['pdf', 'jpg', 'jpeg', 'png', 'xlsx', 'xls'] as const;
export type DocumentExtension = (typeof documentExtensions)[number];

type Kind = 'pdf' | 'jpeg' | 'png' | 'xls' | 'xlsx';

const mimeTypes: Record<Kind, string> = {
  pdf: 'application/pdf',
  jpeg: 'image/jpeg',
  png: 'image/png',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

const kindOfExtension: Record<DocumentExtension, Kind> = { pdf: 'pdf', jpg: 'jpeg', jpeg: 'jpeg', png: 'png', xls: 'xls', xlsx: 'xlsx' };

export function isDocumentExtension(ext: string): ext is DocumentExtension {
  return (documentExtensions as readonly string[]).includes(ext);
}

/** The MIME type to declare for an extension (e.g. the Content-Type a presigned upload must carry). */
export function mimeTypeForExtension(ext: DocumentExtension): string;
export function mimeTypeForExtension(ext: string): string | undefined;
export function mimeTypeForExtension(ext: string): string | undefined {
  const lower = ext.toLowerCase().replace(/^\./, '');
  return isDocumentExtension(lower) ? mimeTypes[kindOfExtension[lower]] : undefined;
}

const maxNameLength = 255;
// C0 controls, DEL, C1 controls; bidi embeddings/overrides/isolates and the invisible bidi marks
// (LRM, RLM, ALM), which can make "invoice<RLO>fdp.exe" display as "invoiceexe.pdf".
// Lone surrogates (not text; they cannot be encoded as UTF-8) go as well.
const unsafeCharacters = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * A file name safe to store and to show: only the last path component, NFC, without control or
 * bidi characters, trimmed of spaces and dots, whitespace collapsed, at most 255 characters
 * (the extension kept). Letters of any script and emoji stay. Never empty: `file` as a last resort.
 */
export function sanitizeFileName(name: string): string {
  const last = String(name).split(/[/\\]/).pop() ?? '';
  // Whitespace controls (tab, newline) become spaces before the other controls are dropped.
  const spaced = last.replace(/\s+/gu, ' ');
  const cleaned = trimName(spaced.replace(unsafeCharacters, '').replace(/ {2,}/g, ' ').normalize('NFC'));
  if (!cleaned) return 'file';
  return cleaned.length <= maxNameLength || [...cleaned].length <= maxNameLength ? cleaned : shorten(cleaned);
}

function trimName(s: string): string {
  return s.replace(/^[\s.]+|[\s.]+$/gu, '');
}

/** Cuts the base name (at a grapheme boundary, so no emoji is split) to keep the extension. */
function shorten(name: string): string {
  const dot = name.lastIndexOf('.');
  const ext = dot > 0 ? name.slice(dot) : '';
  const extLength = [...ext].length;
  // An "extension" too long to keep is just part of the name.
  const keepExt = extLength > 0 && extLength <= 16;
  const base = keepExt ? name.slice(0, dot) : name;
  const budget = maxNameLength - (keepExt ? extLength : 0);
  let out = '';
  let used = 0;
  for (const { segment } of new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(base)) {
    const n = [...segment].length;
    if (used + n > budget) break;
    out += segment;
    used += n;
  }
  out = trimName(out);
  return (out || 'file') + (keepExt ? ext : '');
}

/** An attachment's Content-Disposition: an ASCII fallback name and the exact name in UTF-8 (RFC 6266). */
export function contentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}

/** The extension of a file name, lower-cased, without the dot; '' when it has none (`.bashrc`, `a.`). */
export function extensionOf(name: string): string {
  const last = String(name).split(/[/\\]/).pop() ?? '';
  const dot = last.lastIndexOf('.');
  return dot > 0 ? last.slice(dot + 1).toLowerCase() : '';
}

export type FileInspection = { ok: true; mimeType: string; extension: string } | { ok: false; field: 'file'; message: string };

/**
 * Whether an uploaded file may be stored: its (sanitized) name has an allowed extension, it is not
 * empty, and its bytes are what the extension says. The MIME type is the detected content's.
 * The size limit is the caller's (413, before the bytes are even read).
 */
export function inspectFile(fileName: string, bytes: Buffer): FileInspection {
  const extension = extensionOf(sanitizeFileName(fileName));
  if (!isDocumentExtension(extension)) return refuse(`Allowed types: ${documentExtensions.join(', ')}.`);
  if (bytes.length === 0) return refuse('The file is empty.');
  const expected = kindOfExtension[extension];
  const detected = detectKind(bytes, expected);
  if (detected !== expected) return refuse(`The file's content is not a ${extension.toUpperCase()}.`);
  return { ok: true, mimeType: mimeTypes[detected], extension };
}

function refuse(message: string): FileInspection {
  return { ok: false, field: 'file', message };
}

const pngSignature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const oleSignature = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
const jpegSignature = Buffer.from([0xff, 0xd8, 0xff]);
const zipLocalHeader = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
const pdfHeader = Buffer.from('%PDF-', 'latin1');
/** PDF readers accept the header anywhere in the first 1024 bytes. */
const pdfHeaderWindow = 1024;

/** What the bytes are. `expected` only decides whether the (costlier) ZIP walk is worth doing. */
function detectKind(bytes: Buffer, expected: Kind): Kind | undefined {
  if (startsWith(bytes, pngSignature)) return 'png';
  if (startsWith(bytes, jpegSignature)) return 'jpeg';
  if (startsWith(bytes, oleSignature)) return 'xls';
  if (startsWith(bytes, zipLocalHeader)) return expected === 'xlsx' && isSpreadsheetZip(bytes) ? 'xlsx' : undefined;
  const pdfAt = bytes.subarray(0, pdfHeaderWindow + pdfHeader.length).indexOf(pdfHeader);
  if (pdfAt >= 0) return 'pdf';
  return undefined;
}

/**
 * Which Excel container the bytes are, by content alone: `ole` (an OLE2 compound file, the
 * container of .xls) or `ooxml` (a ZIP holding `[Content_Types].xml` and `xl/`, as .xlsx and
 * .xlsm are); undefined for anything else. Shared with stored manifest files.
 */
export function excelContainer(bytes: Buffer): 'ole' | 'ooxml' | undefined {
  if (startsWith(bytes, oleSignature)) return 'ole';
  if (startsWith(bytes, zipLocalHeader) && isSpreadsheetZip(bytes)) return 'ooxml';
  return undefined;
}

function startsWith(bytes: Buffer, prefix: Buffer): boolean {
  return bytes.length >= prefix.length && bytes.subarray(0, prefix.length).equals(prefix);
}

/** An Office Open XML spreadsheet: a ZIP whose entries include `[Content_Types].xml` and `xl/...`. */
function isSpreadsheetZip(bytes: Buffer): boolean {
  const names = zipEntryNames(bytes);
  return !!names && names.includes('[Content_Types].xml') && names.some((n) => n.startsWith('xl/'));
}

const EOCD_SIG = 0x06054b50;
const EOCD_SIZE = 22;
const ZIP64_LOCATOR_SIG = 0x07064b50;
const ZIP64_LOCATOR_SIZE = 20;
const ZIP64_EOCD_SIG = 0x06064b50;
const ZIP64_EOCD_SIZE = 56;
const CENTRAL_SIG = 0x02014b50;
const CENTRAL_SIZE = 46;
const maxEntries = 100_000;

/**
 * The entry names of a ZIP, read from its central directory (found through the End Of Central
 * Directory record, ZIP64 included); undefined when the structure is not a valid ZIP. Every
 * offset is checked against the buffer, and each step moves forward, so no input throws or loops.
 */
export function zipEntryNames(bytes: Buffer): string[] | undefined {
  const eocd = findEocd(bytes);
  if (eocd === undefined) return undefined;
  let entries = bytes.readUInt16LE(eocd + 10);
  let cdSize = bytes.readUInt32LE(eocd + 12);
  let cdOffset = bytes.readUInt32LE(eocd + 16);
  if (entries === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff) {
    const zip64 = readZip64Eocd(bytes, eocd);
    if (!zip64) return undefined;
    ({ entries, cdSize, cdOffset } = zip64);
  }
  if (entries > maxEntries || cdOffset > bytes.length || cdSize > bytes.length - cdOffset) return undefined;
  const cdEnd = cdOffset + cdSize;
  const names: string[] = [];
  let at = cdOffset;
  for (let i = 0; i < entries; i++) {
    if (at + CENTRAL_SIZE > cdEnd || bytes.readUInt32LE(at) !== CENTRAL_SIG) return undefined;
    const nameLength = bytes.readUInt16LE(at + 28);
    const extraLength = bytes.readUInt16LE(at + 30);
    const commentLength = bytes.readUInt16LE(at + 32);
    const next = at + CENTRAL_SIZE + nameLength + extraLength + commentLength;
    if (next > cdEnd) return undefined;
    names.push(bytes.toString('utf8', at + CENTRAL_SIZE, at + CENTRAL_SIZE + nameLength));
    at = next;
  }
  return names;
}

/** The End Of Central Directory record: the last one whose comment fits in the buffer. */
function findEocd(bytes: Buffer): number | undefined {
  if (bytes.length < EOCD_SIZE) return undefined;
  const lowest = Math.max(0, bytes.length - EOCD_SIZE - 0xffff);
  for (let at = bytes.length - EOCD_SIZE; at >= lowest; at--) {
    if (bytes.readUInt32LE(at) !== EOCD_SIG) continue;
    const commentLength = bytes.readUInt16LE(at + 20);
    if (at + EOCD_SIZE + commentLength <= bytes.length) return at;
  }
  return undefined;
}

function readZip64Eocd(bytes: Buffer, eocd: number): { entries: number; cdSize: number; cdOffset: number } | undefined {
  const locator = eocd - ZIP64_LOCATOR_SIZE;
  if (locator < 0 || bytes.readUInt32LE(locator) !== ZIP64_LOCATOR_SIG) return undefined;
  const recordAt = safeNumber(bytes.readBigUInt64LE(locator + 8));
  if (recordAt === undefined || recordAt + ZIP64_EOCD_SIZE > locator || bytes.readUInt32LE(recordAt) !== ZIP64_EOCD_SIG) return undefined;
  const entries = safeNumber(bytes.readBigUInt64LE(recordAt + 32));
  const cdSize = safeNumber(bytes.readBigUInt64LE(recordAt + 40));
  const cdOffset = safeNumber(bytes.readBigUInt64LE(recordAt + 48));
  if (entries === undefined || cdSize === undefined || cdOffset === undefined) return undefined;
  return { entries, cdSize, cdOffset };
}

function safeNumber(n: bigint): number | undefined {
  return n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : undefined;
}

const units = ['B', 'KB', 'MB', 'GB', 'TB', 'PB'];

/** A size for people, in binary units with one decimal: `0 B`, `512 B`, `1.5 KB`, `1.2 MB`. */
export function humanSize(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) throw new RangeError(`Not a size: ${bytes}`);
  if (bytes < 1024) return `${Math.round(bytes)} B`;
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  // 1048575 B is 1023.999 KB, which one decimal would show as "1024.0 KB".
  if (Number(value.toFixed(1)) >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/** The checksum stored with a document: `sha256:<hex>`. */
export function sha256Checksum(bytes: Buffer): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}
