import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ServiceError, ValidationFailed } from '#core/errors';
import type { Cell, Row } from '#core/manifests/excel/rows';

/**
 * Reads untrusted workbooks (xlsx, xlsm, xls) into rows of plain values.
 *
 * SheetJS 0.15 (sheetjs-style) has published advisories for crafted files: prototype pollution
 * and ReDoS. So the parse runs in a worker thread (spreadsheet-worker.cjs) with its own heap cap
 * and a deadline, no environment (no credentials) and no inherited flags, and is terminated after
 * one file. Only structured-cloned primitives come back, and they are checked and copied again
 * here. Whatever goes wrong with the file ends as a 422 on `file`, never a 500.
 */

export interface ReadSheetOptions {
  /** Deadline for the whole parse, in ms (default 20 s). */
  timeoutMs?: number;
  /** Old-generation heap cap of the worker, in MB (default: `defaultMaxHeapMb()`). */
  maxHeapMb?: number;
  /** Tests only: another worker script speaking the same protocol. */
  workerUrl?: URL;
}

export const spreadsheetLimits = {
  /** Rows the first sheet may use, counted from row 1: 100,000 items plus title and header rows. */
  maxRows: 100_010,
  /** Columns read, from the first of the used range; any further ones are ignored. */
  maxColumns: 200,
  timeoutMs: 20_000,
  /**
   * What the parts of an xlsx may unzip to, in all. A 10 MB workbook of 100,000 rows and 25 text
   * columns unzips to about 150 MB; a zip bomb unzips to gigabytes from a few hundred KB.
   */
  maxExpandedMb: 256,
  /** The worker's heap cap, unless the function's own memory calls for less. */
  maxHeapMb: 512,
} as const;

/**
 * Half the Lambda function's memory, at most 512 MB: the worker must hit its own cap (a clean 422)
 * before the sandbox runs out of memory (which would end the request without an answer).
 * Off Lambda, 512 MB.
 */
export function defaultMaxHeapMb(): number {
  const functionMb = Number(process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE);
  return functionMb > 0 ? Math.min(spreadsheetLimits.maxHeapMb, Math.floor(functionMb / 2)) : spreadsheetLimits.maxHeapMb;
}

const zipMagic = [0x50, 0x4b, 0x03, 0x04];
const cfbMagic = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
const startsWith = (bytes: Uint8Array, magic: number[]) => bytes.length >= magic.length && magic.every((b, i) => bytes[i] === b);

/** xlsx and xlsm are ZIP packages; xls is an OLE compound file. Everything else is refused unread. */
export function looksLikeWorkbook(bytes: Uint8Array): boolean {
  return startsWith(bytes, zipMagic) || startsWith(bytes, cfbMagic);
}

const defaultWorkerUrl = new URL('./spreadsheet-worker.cjs', import.meta.url);

const fileError = (message: string) => new ValidationFailed({ file: [message] });

let live = 0;
/** Worker threads currently running (0 whenever no parse is in flight). */
export function liveSpreadsheetWorkers(): number {
  return live;
}

/** The rows of the workbook's first sheet, blank rows left out. */
export async function readSheetRows(bytes: Uint8Array, opts: ReadSheetOptions = {}): Promise<Row[]> {
  if (bytes.length === 0) throw fileError('The file is empty.');
  if (!looksLikeWorkbook(bytes)) throw fileError('The file is not an Excel workbook (.xlsx, .xlsm or .xls).');
  const workerUrl = opts.workerUrl ?? defaultWorkerUrl;
  // A missing worker script is a packaging fault of ours (see lib/bundling.ts), not bad input.
  if (!existsSync(fileURLToPath(workerUrl))) throw new ServiceError(`The spreadsheet worker ${workerUrl.pathname} is missing from this build.`);

  const timeoutMs = opts.timeoutMs ?? spreadsheetLimits.timeoutMs;
  const maxHeapMb = opts.maxHeapMb ?? defaultMaxHeapMb();
  // The worker gets its own copy: a Buffer may be a slice of Node's shared pool, which must not be transferred.
  const copy = new Uint8Array(bytes);
  const message = await runWorker(workerUrl, copy, timeoutMs, maxHeapMb);
  return rowsFrom(message);
}

type Outcome = { kind: 'message'; value: unknown } | { kind: 'error'; error: Error & { code?: string } } | { kind: 'exit'; code: number } | { kind: 'timeout' };

function runWorker(url: URL, bytes: Uint8Array, timeoutMs: number, maxHeapMb: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(url, {
      workerData: {
        bytes,
        maxRows: spreadsheetLimits.maxRows,
        maxColumns: spreadsheetLimits.maxColumns,
        maxExpandedBytes: spreadsheetLimits.maxExpandedMb * 1024 * 1024,
      },
      transferList: [bytes.buffer as ArrayBuffer],
      resourceLimits: {
        maxOldGenerationSizeMb: maxHeapMb,
        maxYoungGenerationSizeMb: Math.max(4, Math.min(64, Math.floor(maxHeapMb / 8))),
        stackSizeMb: 4,
      },
      env: {},
      execArgv: [],
      // Whatever the parser prints stays in the worker's pipes and is dropped.
      stdout: true,
      stderr: true,
      name: 'spreadsheet',
    });
    live++;
    worker.stdout.resume();
    worker.stderr.resume();

    let outcome: Outcome | undefined;
    const settle = (o: Outcome) => {
      if (outcome) return;
      outcome = o;
      clearTimeout(timer);
      // Resolve only once the thread is gone: no parse outlives its request.
      void worker.terminate();
    };
    const timer = setTimeout(() => settle({ kind: 'timeout' }), timeoutMs);
    worker.once('message', (value: unknown) => settle({ kind: 'message', value }));
    worker.on('error', (error: Error) => settle({ kind: 'error', error }));
    worker.once('exit', (code) => {
      live--;
      settle({ kind: 'exit', code });
      const o = outcome!;
      if (o.kind === 'message') return resolve(o.value);
      reject(failure(o, timeoutMs));
    });
  });
}

function failure(o: Exclude<Outcome, { kind: 'message' }>, timeoutMs: number): ServiceError {
  if (o.kind === 'timeout') {
    const seconds = (timeoutMs / 1000).toLocaleString('en-US', { maximumFractionDigits: 1 });
    return fileError(`Reading the workbook took longer than ${seconds} s. Split it into smaller files.`);
  }
  if (o.kind === 'error') {
    const code = o.error.code;
    if (code === 'ERR_WORKER_OUT_OF_MEMORY') return fileError('The workbook needs more memory to read than allowed. Split it into smaller files.');
    // The worker script or its bundled parser could not load: a packaging fault, not the file's.
    if (code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND' || code === 'ERR_WORKER_PATH' || code === 'ERR_WORKER_INIT_FAILED') {
      return new ServiceError(`The spreadsheet worker could not start: ${o.error.message}`);
    }
  }
  return fileError('The workbook could not be read. Save it again from Excel as .xlsx and retry.');
}

const reasons: Record<string, string> = {
  password: 'The workbook is password-protected. Remove the password and upload it again.',
  unreadable: 'The file could not be read as an Excel workbook. Save it again from Excel as .xlsx and retry.',
  too_many_rows: `The first sheet has more than ${spreadsheetLimits.maxRows.toLocaleString('en-US')} rows. Split the manifest into several files.`,
  too_large_expanded: `The workbook is too large when expanded: its contents unzip to more than ${spreadsheetLimits.maxExpandedMb} MB. Split it into smaller files.`,
};

const isCell = (c: unknown): c is Cell =>
  c === null || typeof c === 'string' || typeof c === 'boolean' || (typeof c === 'number' && Number.isFinite(c));

/** Checks the worker's answer and rebuilds it from scratch: nothing the worker made is kept. */
function rowsFrom(message: unknown): Row[] {
  const unreadable = () => fileError(reasons.unreadable);
  if (typeof message !== 'object' || message === null) throw unreadable();
  const { ok, reason, rows, rowNumbers } = message as Record<string, unknown>;
  if (ok !== true) throw fileError(typeof reason === 'string' && Object.hasOwn(reasons, reason) ? reasons[reason] : reasons.unreadable);
  if (!Array.isArray(rows) || !Array.isArray(rowNumbers) || rows.length !== rowNumbers.length) throw unreadable();
  const out: Row[] = [];
  for (let i = 0; i < rows.length; i++) {
    const cells = rows[i] as unknown;
    const row = rowNumbers[i] as unknown;
    if (!Array.isArray(cells) || cells.length > spreadsheetLimits.maxColumns) throw unreadable();
    if (typeof row !== 'number' || !Number.isInteger(row) || row < 1 || row > spreadsheetLimits.maxRows) throw unreadable();
    const copy: Cell[] = [];
    for (let c = 0; c < cells.length; c++) {
      const cell: unknown = cells[c];
      if (!isCell(cell)) throw unreadable();
      copy.push(cell);
    }
    out.push({ row, cells: copy });
  }
  return out;
}
