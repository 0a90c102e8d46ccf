/**
 * The service under benchmark, in its own process, as `npm start` runs it: DynamoDB Local in
 * memory (a Java process of this bench), then ONE node process `node --import tsx bin/local.ts`
 * pointed at it (DYNAMO_ENDPOINT), so the memory measured is the service's alone, not the bench
 * client's arrays. Its RSS is read from /proc/<pid>/status every 50 ms (VmRSS) and at the end
 * (VmHWM, the kernel's peak).
 *
 * Offers what the benchmarks need over HTTP: a partner account with a pool of tokens (the status
 * routes allow 120 requests a minute per token, the download 30: requests rotate through the
 * pool and are spaced, and a 429 is waited out and asked again, never taken as an answer),
 * submit, wait for a submission's batch to be visible, follow pipeline-status to completion, and
 * download (following the 303 to storage a large answer gives).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ensureTable, startDynamoLocal } from '#twin/dynamodb-local';
import { clients } from './api-client';
import { requestPath } from '../clients/typescript';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const adminToken = 'bench-admin-token-0123456789';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mb = (kb: number) => kb / 1024;

/** VmRSS and VmHWM of a process, in kB (0 once it is gone). */
/** CPU seconds (utime + stime, in clock ticks of 1/100 s) of a process and its threads. */
function cpuOf(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

function memoryOf(pid: number): { rss: number; hwm: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
    return { rss: field('VmRSS'), hwm: field('VmHWM') };
  } catch {
    return { rss: 0, hwm: 0 };
  }
}

/**
 * The node processes `pid` started: none, the service is one process, not a launcher and its
 * child. (Its one child is tsx's esbuild, a ~13 MB Go helper that transpiles the TypeScript.)
 */
function nodeChildrenOf(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`)
    .flatMap((tid) => readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number))
    .filter((child) => {
      try {
        return readlinkSync(`/proc/${child}/exe`) === readlinkSync(`/proc/${pid}/exe`);
      } catch {
        return false;
      }
    });
}

export interface StageTimes {
  /** performance.now() when pipeline-status first read processing, and when each stage first read completed. */
  processing?: number;
  stages: Record<string, number>;
  completed: number;
  status: any;
}

export interface BenchService {
  apiUrl: string;
  pid: number;
  tableName: string;
  /** A document client on the same DynamoDB Local (raw writes, reading items back). */
  dynamo: DynamoDBDocumentClient;
  /** Creates a table of the service's schema in the same DynamoDB Local (the raw baseline's). */
  ensureTable(name: string): Promise<void>;
  submit(body: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any; ms: number }>;
  /** Polls the submission (by Idempotency-Key or chunked base key) until its batch is visible; answers the batch id. */
  waitVisible(key: string): Promise<string>;
  /** Polls pipeline-status until completed, noting when it started processing and when each stage completed. */
  waitCompleted(batchId: string): Promise<StageTimes>;
  /** GET download?format=…, following a redirect; the response, its body not read. */
  download(batchId: string, format: 'json' | 'csv' | 'xlsx'): Promise<Response>;
  /** The next token of the pool, for a bench that makes its own requests (raw bytes, its own headers). */
  token(): string;
  /** CPU seconds used so far (user + system) by the service's process and by DynamoDB Local's. */
  cpu(): { service: number; dynamo: number };
  /** Starts a window; the function answers the peak of the 50 ms VmRSS samples within it (MB). */
  rssWindow(): () => number;
  /** The sampled peak and the kernel's VmHWM of the service so far (MB). */
  memory(): { sampledMb: number; hwmMb: number };
  /** 429s met (and waited out) so far. */
  rateLimited(): number;
  stop(): Promise<void>;
}

export async function startBenchService(opts: { tableName: string; tokens?: number; pollMs?: number; waitMs?: number }): Promise<BenchService> {
  // Status polls every 500 ms, as an impatient client would. Not faster: one poll (authorizer,
  // rate limit, status read) cost the service about 20 ms and DynamoDB Local about 15 ms of CPU
  // (measured: 149 polls in 20 s took 3.05 s and 2.31 s), so polling every 100 ms spent about a
  // sixth of DynamoDB Local's CPU of a 10,000-item run on the benchmark's own questions.
  const pollMs = opts.pollMs ?? 500;
  /** How long a wait for visible or completed may last before the bench gives up (a stuck service). */
  const waitMs = opts.waitMs ?? 20 * 60_000;
  const dataDir = mkdtempSync(join(tmpdir(), 'despacho-bench-'));
  // In memory: the benches compare the service with raw writes, not the disk's fsync.
  const dynamoLocal = await startDynamoLocal();
  let child: ChildProcess | undefined;
  let output = '';
  const killChild = () => child?.kill('SIGKILL');
  process.once('exit', killChild);

  let sampler: NodeJS.Timeout | undefined;
  let stopped = false;
  let stopping: Promise<void> | undefined;
  // Every caller waits for the one stop (a signal's, and the bench's `finally` that its failing requests reach).
  const stop = () => (stopping ??= stopAll());
  const stopAll = async () => {
    stopped = true;
    clearInterval(sampler);
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child!.once('exit', r));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child!.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    process.removeListener('exit', killChild);
    await dynamoLocal.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void stop().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143)));

  try {
    // BENCH_NODE_ARGS: extra flags for the service's node (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
    const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
    child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'bin/local.ts'], {
      cwd: root,
      env: {
        ...process.env,
        PORT: '0',
        DATA_DIR: dataDir,
        DYNAMO_ENDPOINT: dynamoLocal.endpoint,
        TABLE_NAME: opts.tableName,
        ADMIN_TOKEN: adminToken,
        // BENCH_SERVICE_LOG: a file for the service's log at INFO (its pipeline tasks with their times), to see where a run spends.
        LOG_LEVEL: process.env.BENCH_SERVICE_LOG ? 'INFO' : 'WARN',
        POWERTOOLS_LOG_LEVEL: process.env.BENCH_SERVICE_LOG ? 'INFO' : 'WARN',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (d: Buffer) => (output = (output + d).slice(-20_000));
    if (process.env.BENCH_SERVICE_LOG) child.stdout!.pipe(createWriteStream(process.env.BENCH_SERVICE_LOG));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    const apiUrl = await new Promise<string>((resolveUrl, reject) => {
      const timer = setTimeout(() => reject(new Error(`the service was not ready in 120 s:\n${output}`)), 120_000);
      child!.stdout!.on('data', () => {
        const m = /ready on (http:\/\/\S+\/api)/.exec(output);
        if (m) {
          clearTimeout(timer);
          resolveUrl(m[1]);
        }
      });
      child!.once('exit', (code) => reject(new Error(`the service exited (${code}):\n${output}`)));
    });
    child.once('exit', (code, signal) => {
      if (!stopped) console.error(`\nthe service exited during the bench (${code ?? signal}):\n${output}`);
    });
    const pid = child.pid!;
    if (nodeChildrenOf(pid).length) throw new Error(`the service is not one node process: ${pid} started ${nodeChildrenOf(pid).join(', ')}`);

    let sampledPeak = 0;
    let windowPeak = 0;
    sampler = setInterval(() => {
      const { rss } = memoryOf(pid);
      sampledPeak = Math.max(sampledPeak, rss);
      windowPeak = Math.max(windowPeak, rss);
    }, 50);

    let limited = 0;
    const api = clients(apiUrl);
    /**
     * One call through the typed client, by method and path (the bench builds them from its data);
     * a 429 is waited out (its Retry-After, else 2 s) and the call sent again with the next token.
     * `stream` answers a success with its body unread (a download).
     */
    const call = async (method: string, path: string, token: () => string, o: { body?: unknown; headers?: Record<string, string>; stream?: boolean } = {}) => {
      for (;;) {
        const answer = await requestPath(api(token()), method, path, {
          body: o.body,
          headers: o.headers,
          // A body given as text (a signed submission) goes as it is.
          bodySerializer: (b: unknown) => (typeof b === 'string' ? b : JSON.stringify(b)),
          parseAs: o.stream ? 'stream' : 'json',
        });
        const res = answer.response;
        if (res.status !== 429) return answer;
        limited++;
        await sleep(Number(res.headers.get('retry-after') ?? 2) * 1000);
      }
    };
    const json = async (method: string, path: string, token: () => string, o: { body?: unknown; headers?: Record<string, string> } = {}) => {
      const { data, error, response } = await call(method, path, token, o);
      return { status: response.status, body: (data ?? error) as any };
    };

    const admin = () => adminToken;
    const account = (await json('POST', '/v1/admin/accounts', admin, { body: { name: 'Bench Courier', kind: 'partner' } })).body.data;
    const tokens: string[] = [];
    for (let i = 0; i < (opts.tokens ?? 10); i++) {
      const res = await json('POST', '/v1/admin/tokens', admin, { body: { account_id: account.id, name: `bench-${i}`, role: 'partner' } });
      if (!res.body.data?.token) throw new Error(`token: ${res.status} ${JSON.stringify(res.body)}`);
      tokens.push(res.body.data.token);
    }
    let next = 0;
    const token = () => tokens[next++ % tokens.length];

    const dynamo = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint: dynamoLocal.endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }));

    return {
      apiUrl,
      pid,
      tableName: opts.tableName,
      dynamo,
      ensureTable: (name) => ensureTable(dynamo as unknown as DynamoDBClient, name),
      async submit(body, headers = {}) {
        const started = performance.now();
        const answer = await json('POST', '/v1/couriers/default/manifests/webhook', token, { body, headers });
        return { ...answer, ms: performance.now() - started };
      },
      async waitVisible(key) {
        const deadline = Date.now() + waitMs;
        for (;;) {
          const s = await json('GET', `/v1/couriers/default/webhook/${key}/status`, token);
          if (s.status !== 200) throw new Error(`status of ${key}: ${s.status} ${JSON.stringify(s.body).slice(0, 300)}`);
          if (s.body.status === 'failed') throw new Error(`submission ${key} failed: ${s.body.failure}`);
          if (s.body.batch_id) return s.body.batch_id as string;
          if (Date.now() > deadline) throw new Error(`submission ${key} not visible in ${waitMs / 1000} s: ${JSON.stringify(s.body)}`);
          await sleep(pollMs);
        }
      },
      async waitCompleted(batchId) {
        const times: StageTimes = { stages: {}, completed: 0, status: undefined };
        const deadline = Date.now() + waitMs;
        for (;;) {
          const s = await json('GET', `/v1/couriers/manifests/${batchId}/pipeline-status`, token);
          const now = performance.now();
          if (s.status !== 200) throw new Error(`pipeline-status of ${batchId}: ${s.status} ${JSON.stringify(s.body).slice(0, 300)}`);
          const d = s.body.data;
          if (d.status === 'failed') throw new Error(`pipeline of ${batchId} failed: ${JSON.stringify(d.error)}`);
          if (d.status !== 'pending' && times.processing === undefined) times.processing = now;
          for (const step of d.pipeline_steps) if (step.status === 'completed') times.stages[step.key] ??= now;
          if (d.status === 'completed' && d.overall_progress === 100) return { ...times, completed: now, status: d };
          if (Date.now() > deadline) throw new Error(`pipeline of ${batchId} not completed in ${waitMs / 1000} s: ${JSON.stringify(d)}`);
          await sleep(pollMs);
        }
      },
      download: async (batchId, format) => (await call('GET', `/v1/couriers/manifests/${batchId}/download?format=${format}`, token, { stream: true })).response,
      token,
      cpu: () => ({ service: cpuOf(pid), dynamo: cpuOf(dynamoLocal.pid) }),
      rssWindow() {
        windowPeak = memoryOf(pid).rss;
        return () => mb(windowPeak);
      },
      memory() {
        const { rss, hwm } = memoryOf(pid);
        return { sampledMb: mb(Math.max(sampledPeak, rss)), hwmMb: mb(hwm) };
      },
      rateLimited: () => limited,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
