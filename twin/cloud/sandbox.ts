import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Readable } from 'node:stream';
import type { Deployment, StackResource } from './template';

/*
 * The cloud lane's Lambda: each function of the template runs from its bundle in cdk.out, in
 * worker threads (one per concurrent invocation, kept warm), each with exactly the environment
 * variables the template sets for that function plus those the Lambda runtime adds. A handler
 * that reads a variable the template does not set fails here as it would in AWS; a bundle that
 * misses a file beside it fails to load as it would. A call over the function's Timeout is cut.
 */

export interface FunctionSpec {
  logicalId: string;
  name: string;
  arn: string;
  file: string;
  exportName: string;
  environment: Record<string, string>;
  timeoutSeconds: number;
  memoryMb: number;
  /** The version its `live` alias runs: '1' as created, one more for each version a lane deploy publishes (twin/cloud/rollout.ts). */
  version: string;
}

/** One invocation as CloudWatch counts it for AWS/Lambda's metrics (Invocations, Errors, Duration), on the lane's clock. */
export interface InvocationSample {
  /** The lane's time (ms) when the invocation ended. */
  at: number;
  version: string;
  error: boolean;
  /** How long the call ran, on the real clock (the lane's clock may move during a call). */
  durationMs: number;
}

/** How a function's `live` alias routes: its version, and a second one taking `weight` of the calls (CodeDeploy's shift). */
interface AliasRouting {
  primary: FunctionSpec;
  additional?: { spec: FunctionSpec; weight: number; calls: number; taken: number };
}

export interface LambdaError {
  errorType: string;
  errorMessage: string;
  trace?: string[];
}

/** A failed invocation, as Lambda reports a function error to its caller. */
export class FunctionError extends Error {
  constructor(
    readonly fn: string,
    readonly lambda: LambdaError,
  ) {
    super(lambda.errorMessage);
    this.name = lambda.errorType;
  }
}

const workerFile = join(dirname(fileURLToPath(import.meta.url)), 'sandbox-worker.mjs');

/** What the runtime adds to a function's environment (and what the SDK needs to reach the lane). */
export interface RuntimeEnvironment {
  region: string;
  /** Where S3, SQS, EventBridge, Scheduler, Step Functions and Secrets Manager answer. */
  servicesUrl: string;
  dynamoUrl: string;
  /** Where the functions' S3 client goes, when not servicesUrl (the lane's POST policy gate). */
  s3Url?: string;
}

/** The functions of a deployment, by name, read from its `AWS::Lambda::Function` resources. */
export function functionSpecs(d: Deployment): Map<string, FunctionSpec> {
  const out = new Map<string, FunctionSpec>();
  for (const r of d.resources('AWS::Lambda::Function')) out.set(d.physicalId(r), functionSpec(d, r));
  return out;
}

function functionSpec(d: Deployment, r: StackResource): FunctionSpec {
  const p = d.properties(r);
  const asset = r.resource.Metadata?.['aws:asset:path'] as string | undefined;
  if (!asset) throw new Error(`${r.logicalId}: no bundled asset in its metadata (was it synthesized with bundling?)`);
  const [module, exportName] = String(p.Handler).split(/\.(?=[^.]+$)/);
  const dir = join(d.assemblyDir, asset);
  const file = ['.mjs', '.js', '.cjs'].map((ext) => join(dir, module + ext)).find(existsSync) ?? join(dir, `${module}.mjs`);
  const name = d.physicalId(r);
  return {
    logicalId: r.logicalId,
    name,
    arn: `arn:aws:lambda:${d.endpoints.region}:${d.endpoints.account}:function:${name}`,
    file,
    exportName,
    environment: Object.fromEntries(Object.entries((p.Environment?.Variables ?? {}) as Record<string, unknown>).map(([k, v]) => [k, String(v)])),
    timeoutSeconds: Number(p.Timeout ?? 3),
    memoryMb: Number(p.MemorySize ?? 128),
    version: '1',
  };
}

interface Sandbox {
  worker: Worker;
  ready: Promise<LambdaError | undefined>;
  busy: boolean;
  pending?: { id: string; resolve(v: unknown): void; reject(e: Error): void; timer: NodeJS.Timeout };
}

/** The lines of a function's log kept (the newest). */
const logLines = 1_000;
/** The invocation samples kept per function (at least the newest this many): CloudWatch's metrics as the lane's alarms read them. */
const samplesKept = 20_000;

export class Functions {
  private readonly pools = new Map<string, Sandbox[]>();
  private readonly waiting = new Map<string, (() => void)[]>();
  /** Shared with every sandbox: the lane clock's offset from the real one, in ms. */
  readonly clock = new Float64Array(new SharedArrayBuffer(8));
  /** Cold starts so far, by function (a new sandbox each). */
  readonly coldStarts = new Map<string, number>();
  /**
   * What each function wrote (stdout and stderr), its last `logLines` lines, as CloudWatch keeps a
   * function's log stream: not the runner's output, where the suite's log must stay readable.
   * `DESPACHO_LANE_LOGS=1` also writes them to this process's stderr.
   */
  private readonly logs = new Map<string, string[]>();
  /** Each function's `live` alias: its version, and the one a rollout is shifting traffic to. */
  private readonly aliases = new Map<string, AliasRouting>();
  /** Each function's invocations through its alias, newest last (the last `samplesKept`). */
  private readonly samples = new Map<string, InvocationSample[]>();

  constructor(
    readonly specs: Map<string, FunctionSpec>,
    private readonly runtime: RuntimeEnvironment,
    private readonly opts: { maxConcurrencyPerFunction?: number; logLevel?: string } = {},
  ) {}

  /** The lane's time, in ms: the real clock moved by the offset the sandboxes share. */
  now(): number {
    return Date.now() + this.clock[0];
  }

  /** The invocations of function `name` so far (the last `samplesKept`), for the lane's alarms. */
  invocations(name: string): readonly InvocationSample[] {
    return this.samples.get(name) ?? [];
  }

  /** The version the `live` alias of `name` runs, and the one taking part of its calls, with its weight. */
  routing(name: string): { version: string; additional?: { version: string; weight: number } } {
    const r = this.alias(name);
    return { version: r.primary.version, ...(r.additional ? { additional: { version: r.additional.spec.version, weight: r.additional.weight } } : {}) };
  }

  /**
   * The alias of `name` sends `weight` (0 to 1) of its calls to `spec` (a version a lane deploy
   * published) and the rest to its version. As Lambda's weighted alias, a call goes to one version
   * or the other; here every call is counted, so exactly `weight` of them go (no random draw).
   */
  shift(name: string, spec: FunctionSpec, weight: number): void {
    const r = this.alias(name);
    if (r.additional?.spec.version === spec.version) r.additional.weight = weight;
    else r.additional = { spec, weight, calls: 0, taken: 0 };
  }

  /** The alias of `name` runs `spec` alone from now on (a shift completed, or rolled back to the version it had). */
  point(name: string, spec: FunctionSpec): void {
    const r = this.alias(name);
    const before = [r.primary, r.additional?.spec].filter((s): s is FunctionSpec => !!s && s.version !== spec.version);
    this.aliases.set(name, { primary: spec });
    this.specs.set(name, spec);
    // The environments of a version no longer called are reclaimed, as Lambda does.
    for (const old of before) {
      const pool = this.pools.get(poolKey(old)) ?? [];
      this.pools.delete(poolKey(old));
      for (const s of pool) void s.worker.terminate();
    }
  }

  private alias(name: string): AliasRouting {
    let r = this.aliases.get(name);
    if (!r) {
      const spec = this.specs.get(name);
      if (!spec) throw new Error(`No function ${name} in the template`);
      r = { primary: spec };
      this.aliases.set(name, r);
    }
    return r;
  }

  /** Which version takes this call: the additional one for exactly its weight of the calls. */
  private pick(name: string): FunctionSpec {
    const r = this.alias(name);
    const a = r.additional;
    if (!a) return r.primary;
    a.calls++;
    if (a.taken < Math.floor(a.calls * a.weight + 1e-9)) {
      a.taken++;
      return a.spec;
    }
    return r.primary;
  }

  private sample(name: string, s: InvocationSample): void {
    const list = this.samples.get(name) ?? [];
    list.push(s);
    // Trimmed in one go at twice the limit, not by one at every call past it (a copy of 20,000 each time).
    if (list.length > 2 * samplesKept) list.splice(0, list.length - samplesKept);
    this.samples.set(name, list);
  }

  /** The lines function `name` wrote, oldest first (the last `logLines`). */
  logsOf(name: string): readonly string[] {
    return this.logs.get(name) ?? [];
  }

  private keepLogs(name: string, stream: Readable): void {
    let partial = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      const kept = this.logs.get(name) ?? [];
      kept.push(...lines);
      if (kept.length > logLines) kept.splice(0, kept.length - logLines);
      this.logs.set(name, kept);
      if (process.env.DESPACHO_LANE_LOGS === '1') for (const line of lines) process.stderr.write(`[${name}] ${line}\n`);
    });
  }

  byArn(arn: string): FunctionSpec {
    const name = /:function:([^:]+)(:[^:]+)?$/.exec(arn)?.[1];
    const spec = name ? this.specs.get(name) : undefined;
    if (!spec) throw new Error(`No function of the template has the ARN ${arn}`);
    return spec;
  }

  private readonly failures: { name: string; when: (event: any) => boolean; message: string }[] = [];

  /**
   * From now on, calls of function `name` whose event matches `when` fail with a function error
   * of this message, as a function that throws on every such call would (for tests of the paths
   * that handle a function failing for good). Answers a function that ends it.
   */
  failWhen(name: string, when: (event: any) => boolean, message: string): () => void {
    if (!this.specs.has(name)) throw new Error(`No function ${name} in the template`);
    const entry = { name, when, message };
    this.failures.push(entry);
    return () => void this.failures.splice(this.failures.indexOf(entry), 1);
  }

  /** Invokes a function synchronously (RequestResponse): its result, or a FunctionError. */
  async invoke(name: string, event: unknown): Promise<unknown> {
    if (!this.specs.has(name)) throw new Error(`No function ${name} in the template`);
    const spec = this.pick(name);
    // Lambda's Duration is the time the call ran: the real clock's, not the lane's, which a test
    // may move by minutes while a call is in flight (a worker's 0.5 s would read as 11 minutes and
    // set its duration alarm off).
    const started = performance.now();
    const durationMs = () => Math.round(performance.now() - started);
    try {
      const result = await this.run(spec, name, event);
      this.sample(name, { at: this.now(), version: spec.version, error: false, durationMs: durationMs() });
      return result;
    } catch (err) {
      this.sample(name, { at: this.now(), version: spec.version, error: true, durationMs: durationMs() });
      throw err;
    }
  }

  private async run(spec: FunctionSpec, name: string, event: unknown): Promise<unknown> {
    const injected = this.failures.find((f) => f.name === name && f.when(event));
    if (injected) throw new FunctionError(name, { errorType: 'Error', errorMessage: injected.message });
    const sandbox = await this.acquire(spec);
    try {
      const initError = await sandbox.ready;
      if (initError) throw new FunctionError(name, initError);
      return await new Promise((resolve, reject) => {
        const id = randomUUID();
        const timer = setTimeout(() => {
          // Lambda stops the environment; the next call gets a fresh one.
          this.discard(poolKey(spec), sandbox);
          reject(new FunctionError(name, { errorType: 'Sandbox.Timedout', errorMessage: `Task timed out after ${spec.timeoutSeconds.toFixed(2)} seconds` }));
        }, spec.timeoutSeconds * 1000);
        sandbox.pending = { id, resolve, reject, timer };
        sandbox.worker.postMessage({ id, requestId: id, event: JSON.parse(JSON.stringify(event ?? null)), timeoutMs: spec.timeoutSeconds * 1000 });
      });
    } finally {
      this.release(poolKey(spec), sandbox);
    }
  }

  private async acquire(spec: FunctionSpec): Promise<Sandbox> {
    const key = poolKey(spec);
    const pool = this.pools.get(key) ?? [];
    this.pools.set(key, pool);
    for (;;) {
      const idle = pool.find((s) => !s.busy);
      if (idle) {
        idle.busy = true;
        return idle;
      }
      if (pool.length < (this.opts.maxConcurrencyPerFunction ?? 8)) {
        const s = this.start(spec);
        s.busy = true;
        pool.push(s);
        return s;
      }
      await new Promise<void>((resolve) => {
        const list = this.waiting.get(key) ?? [];
        list.push(resolve);
        this.waiting.set(key, list);
      });
    }
  }

  private release(key: string, sandbox: Sandbox) {
    sandbox.busy = false;
    this.waiting.get(key)?.shift()?.();
  }

  private discard(key: string, sandbox: Sandbox) {
    const pool = this.pools.get(key) ?? [];
    const i = pool.indexOf(sandbox);
    if (i >= 0) pool.splice(i, 1);
    void sandbox.worker.terminate();
  }

  private start(spec: FunctionSpec): Sandbox {
    this.coldStarts.set(spec.name, (this.coldStarts.get(spec.name) ?? 0) + 1);
    const { region, servicesUrl, dynamoUrl, s3Url } = this.runtime;
    const env: Record<string, string> = {
      // What the Lambda runtime sets.
      AWS_REGION: region,
      AWS_DEFAULT_REGION: region,
      AWS_LAMBDA_FUNCTION_NAME: spec.name,
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(spec.memoryMb),
      AWS_LAMBDA_FUNCTION_VERSION: spec.version,
      AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
      LAMBDA_TASK_ROOT: dirname(spec.file),
      _HANDLER: `${spec.exportName}`,
      TZ: ':UTC',
      // The credentials a role would give, and where the SDK finds the lane's services.
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      AWS_ENDPOINT_URL: servicesUrl,
      AWS_ENDPOINT_URL_DYNAMODB: dynamoUrl,
      ...(s3Url ? { AWS_ENDPOINT_URL_S3: s3Url } : {}),
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      // Lambda gives each traced invocation its X-Ray trace header; the lane has none and no
      // daemon, so the tracer's subsegments have nowhere to go: not an error worth a stack trace.
      AWS_XRAY_CONTEXT_MISSING: 'IGNORE_ERROR',
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      ...spec.environment,
      ...(this.opts.logLevel ? { LOG_LEVEL: this.opts.logLevel, POWERTOOLS_LOG_LEVEL: this.opts.logLevel } : {}),
    };
    delete env.NODE_OPTIONS;
    const worker = new Worker(workerFile, {
      env,
      execArgv: [],
      workerData: { file: spec.file, export: spec.exportName, functionName: spec.name, functionVersion: spec.version, functionArn: `${spec.arn}:live`, memoryMb: spec.memoryMb, clock: this.clock.buffer },
      stdout: true,
      stderr: true,
    });
    worker.unref();
    this.keepLogs(spec.name, worker.stdout);
    this.keepLogs(spec.name, worker.stderr);
    const sandbox: Sandbox = { worker, busy: false, ready: undefined as never };
    sandbox.ready = new Promise((resolve) => {
      worker.once('message', (m: { ready: boolean; error?: LambdaError }) => resolve(m.ready ? undefined : m.error));
      worker.once('error', (err) => resolve({ errorType: 'Runtime.ExitError', errorMessage: err.message }));
    });
    worker.on('message', (m: { id?: string; result?: unknown; error?: LambdaError }) => {
      const p = sandbox.pending;
      if (!m.id || !p || p.id !== m.id) return;
      clearTimeout(p.timer);
      sandbox.pending = undefined;
      if (m.error) p.reject(new FunctionError(spec.name, m.error));
      else p.resolve(m.result);
    });
    worker.on('error', (err) => {
      const p = sandbox.pending;
      if (p) {
        clearTimeout(p.timer);
        sandbox.pending = undefined;
        p.reject(new FunctionError(spec.name, { errorType: 'Runtime.ExitError', errorMessage: err.message }));
      }
      this.discard(poolKey(spec), sandbox);
    });
    return sandbox;
  }

  async stop(): Promise<void> {
    const all = [...this.pools.values()].flat();
    this.pools.clear();
    await Promise.all(all.map((s) => s.worker.terminate()));
  }
}

/** A version's environments are its own: two versions of a function never share one. */
const poolKey = (spec: FunctionSpec) => `${spec.name}:${spec.version}`;
