/**
 * The end of a run in a process of its own, with the heap the finish's Lambda gives V8 (the
 * Node.js runtime's bootstrap: old space = memory - memory/10, semi space = memory/20), for a test
 * to hold the finish to its function's memory: an in-process figure measures how lazily the test
 * worker's unbounded heap collects, not what the function needs.
 *
 * Run as `node --import tsx <flags> test/support/finish-process.ts '<json>'` with the table's
 * environment (AWS_ENDPOINT_URL_DYNAMODB, TABLE_NAME, the access key) inherited; answers two lines
 * of JSON: once the results are written, `FinishResults` (a test can check them while the downloads
 * are made), and at the end `FinishAnswer`: the summary, the times and the process's peak resident
 * memory, over the whole finish.
 */
import { LocalBlobs } from '#twin/blobs';
import { useBlobs } from '#infra/blobs';
import { writeBatchResults } from '#services/pipeline/batch-results';
import { writeExports } from '#services/manifests/exports';
import type { BatchRecord } from '#core/manifests/model';

export interface FinishJob {
  dataDir: string;
  accountId: number;
  pages: number[];
  /** The batch as its run completes it, but its summary (the run's). */
  batch: Omit<BatchRecord, 'summary'>;
}

/** The first line: the results are written, the downloads not yet. */
export interface FinishResults {
  step: 'results';
  summary: BatchRecord['summary'];
  resultsMs: number;
}

export interface FinishAnswer {
  summary: BatchRecord['summary'];
  resultsMs: number;
  exportsMs: number;
  /** Resident memory before the work and at its peak (the kernel's figure), in bytes. */
  rssBefore: number;
  rssPeak: number;
  heapLimit: number;
}

/** The V8 flags of a Lambda function of `memoryMb` (what the nodejs runtime's bootstrap passes). */
export function lambdaHeapFlags(memoryMb: number): string[] {
  const newSpace = Math.floor(memoryMb / 10);
  return [`--max-semi-space-size=${Math.floor(newSpace / 2)}`, `--max-old-space-size=${memoryMb - newSpace}`];
}

async function main() {
  const job = JSON.parse(process.argv[2]) as FinishJob;
  useBlobs(new LocalBlobs(job.dataDir, () => ''));
  const { getHeapStatistics } = await import('node:v8');
  const rssBefore = process.memoryUsage().rss;
  const { batchId, finishedRunId: runId } = job.batch;
  const t0 = performance.now();
  const { summary } = await writeBatchResults({ batchId, runId: runId!, accountId: job.accountId }, job.pages, undefined);
  const t1 = performance.now();
  process.stdout.write(JSON.stringify({ step: 'results', summary, resultsMs: Math.round(t1 - t0) } satisfies FinishResults) + '\n');
  await writeExports({ ...job.batch, summary } as BatchRecord);
  const t2 = performance.now();
  const answer: FinishAnswer = {
    summary,
    resultsMs: Math.round(t1 - t0),
    exportsMs: Math.round(t2 - t1),
    rssBefore,
    rssPeak: process.resourceUsage().maxRSS * 1024,
    heapLimit: getHeapStatistics().heap_size_limit,
  };
  process.stdout.write(JSON.stringify(answer) + '\n');
}

if (process.argv[1]?.endsWith('finish-process.ts')) {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    },
  );
}
