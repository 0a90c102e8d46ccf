import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { freePort, startDynamoLocal, type RunningDynamo } from '../dynamodb-local';
import { resetDocumentClient } from '#infra/dynamo';
import type { Server } from 'node:http';
import { createGateway } from './gateway';
import { createS3PostGate } from './s3-post-gate';
import { startTableTap } from './table-tap';
import { laneClients, provision, type Clients } from './provision';
import { startJournals, startPitrEndpoint, type ChangeJournal } from './pitr';
import { Rollouts } from './rollout';
import { Runner } from './runner';
import { Functions, functionSpecs } from './sandbox';
import { Deployment, motoAccount } from './template';

/*
 * The cloud lane: the deployable artifact (the templates and Lambda bundles `cdk synth` writes)
 * run on this machine against AWS-faithful engines: moto_server for S3, SQS, EventBridge,
 * Scheduler, Step Functions, Secrets Manager and KMS, DynamoDB Local for the table. Every adapter is the
 * production one; every resource comes from the templates.
 */

const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export interface LaneOptions {
  /** A cloud assembly already synthesized (`cdk synth -o <dir>`); otherwise the lane synthesizes one. */
  assemblyDir?: string;
  stage?: string;
  port?: number;
  host?: string;
  /** Overrides the functions' LOG_LEVEL (the dev stage logs at DEBUG). */
  logLevel?: string;
  /** Polling interval of the runner's SQS pollers, schedules and executions. */
  pollMs?: number;
  /**
   * Run against AWS services already running there (LocalStack: every service, DynamoDB included,
   * on one endpoint) instead of starting moto_server and DynamoDB Local. Its clock cannot be moved.
   */
  endpoint?: string;
  /** The account the external endpoint answers for (LocalStack: 000000000000). */
  account?: string;
  /** false: the runner waits for `lane.runner.start()` (nothing consumes the queues until then). */
  autoRun?: boolean;
  /** Count the functions' table operations by kind (`lane.tableOperations`), through a pass-through in front of DynamoDB Local. */
  countTableOperations?: boolean;
  /** Where moto and the runner log; defaults to nowhere. */
  log?: (line: string) => void;
}

export interface Lane {
  apiUrl: string;
  /** Where S3, SQS, EventBridge, Scheduler, Step Functions and Secrets Manager answer (moto_server, or the endpoint given). */
  servicesUrl: string;
  dynamoUrl: string;
  /**
   * The operator's DynamoDB endpoint (`aws dynamodb ... --endpoint-url`): DynamoDB Local, with
   * RestoreTableToPointInTime played by the lane (pitr.ts). On an external endpoint, that endpoint.
   */
  dynamoOperatorUrl: string;
  /** Resolves when every table change made before the call is in the lane's point-in-time journal. */
  pitrCaughtUp(): Promise<void>;
  /** False on an external endpoint, whose clock the lane cannot move. */
  clockMovable: boolean;
  region: string;
  deployment: Deployment;
  functions: Functions;
  runner: Runner;
  clients: Clients;
  /** The table, bucket and bus names of the deployment (as the template names them). */
  names: { table: string; bucket: string; bus: string };
  /** The functions' table operations by kind so far (empty unless `countTableOperations`). */
  tableOperations(): Map<string, number>;
  /** How many times API Gateway called an authorizer (its cache answered the rest). */
  authorizerInvocations(): number;
  /**
   * A deploy of another assembly of the same stage (twin/cloud/rollout.ts): a new version of each
   * function whose bundle or settings changed, its alias shifted by its CodeDeploy group and moved
   * back when one of the group's alarms goes off. `rollouts.settled(deploy)` waits for its end.
   */
  rollouts: Rollouts;
  /** Moves the lane's clock (moto's and every function's) on by `ms`. */
  advanceClock(ms: number): Promise<void>;
  stop(): Promise<void>;
}

/** `cdk synth` of one stage into `outdir`, with the CDK CLI of the lock file (bundles every function with esbuild). */
export async function synthesize(stage: string, outdir: string, log?: (line: string) => void, context: Record<string, string> = {}): Promise<void> {
  const cdk = join(projectRoot, 'node_modules', '.bin', 'cdk');
  const extra = Object.entries(context).flatMap(([k, v]) => ['-c', `${k}=${v}`]);
  const child = spawn(cdk, ['synth', '-c', `stage=${stage}`, ...extra, '-o', outdir, '-q'], { cwd: projectRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  for (const s of [child.stdout!, child.stderr!]) s.on('data', (b: Buffer) => (output += b.toString()));
  const [code] = (await once(child, 'exit')) as [number];
  log?.(output.trim());
  if (code !== 0) throw new Error(`cdk synth -c stage=${stage} failed (exit ${code}):\n${output.slice(-4000)}`);
}

interface RunningMoto {
  url: string;
  child: ChildProcess;
  advance(seconds: number): Promise<void>;
  stop(): Promise<void>;
}

/** moto_server with a movable clock (moto-server.py), on a free port. */
export async function startMoto(log?: (line: string) => void): Promise<RunningMoto> {
  const port = await freePort();
  const python = process.env.CLOUD_LANE_PYTHON ?? 'python3';
  const child = spawn(python, [join(projectRoot, 'twin', 'cloud', 'moto-server.py'), String(port)], { stdio: ['pipe', 'pipe', 'pipe'] });
  child.stderr!.on('data', (b: Buffer) => log?.(b.toString().trimEnd()));
  const answers = createInterface({ input: child.stdout! });
  const waiting: ((line: string) => void)[] = [];
  answers.on('line', (line) => (line.startsWith('ok ') ? waiting.shift()?.(line) : log?.(line)));
  const url = `http://127.0.0.1:${port}`;
  const exited = once(child, 'exit').then(() => {
    throw new Error(`moto_server exited (is moto 5 installed in ${python}?)`);
  });
  exited.catch(() => undefined);
  const deadline = Date.now() + 30_000;
  for (;;) {
    const up = await fetch(`${url}/moto-api/`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (child.exitCode !== null) await exited;
    if (Date.now() > deadline) throw new Error('moto_server did not answer within 30 s');
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    child,
    async advance(seconds) {
      const answered = new Promise<string>((resolve) => waiting.push(resolve));
      child.stdin!.write(`advance ${seconds}\n`);
      await answered;
    },
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

export async function startCloudLane(opts: LaneOptions = {}): Promise<Lane> {
  const stage = opts.stage ?? 'dev';
  const region = 'us-east-1';
  let synthDir: string | undefined;
  let assemblyDir = opts.assemblyDir;
  if (!assemblyDir) {
    synthDir = await mkdtemp(join(tmpdir(), 'despacho-cloud-'));
    assemblyDir = synthDir;
    await synthesize(stage, assemblyDir, opts.log);
  }
  if (!existsSync(join(assemblyDir, 'manifest.json'))) throw new Error(`${assemblyDir} is no cloud assembly (no manifest.json)`);

  let dynamo: RunningDynamo | undefined;
  let moto: RunningMoto | undefined;
  let functions: Functions | undefined;
  let runner: Runner | undefined;
  let gate: Server | undefined;
  let tap: Awaited<ReturnType<typeof startTableTap>> | undefined;
  let pitr: Awaited<ReturnType<typeof startPitrEndpoint>> | undefined;
  let journals = new Map<string, ChangeJournal>();
  try {
    if (!opts.endpoint) [dynamo, moto] = await Promise.all([startDynamoLocal(), startMoto(opts.log)]);
    const servicesUrl = opts.endpoint ?? moto!.url;
    const dynamoUrl = opts.endpoint ?? dynamo!.endpoint;
    const deployment = new Deployment(assemblyDir, { region, account: opts.endpoint ? (opts.account ?? '000000000000') : motoAccount });
    const clients = laneClients(region, servicesUrl, dynamoUrl);
    await provision(deployment, clients);
    // moto stores any POST Object: the gate checks the policy first, as S3 does.
    let s3Url: string | undefined;
    if (moto) {
      gate = createS3PostGate({ target: moto.url, secretAccessKey: 'test', now: () => new Date(Date.now() + (functions?.clock[0] ?? 0)) });
      gate.listen(0, '127.0.0.1');
      await once(gate, 'listening');
      s3Url = `http://127.0.0.1:${(gate.address() as AddressInfo).port}`;
    }
    tap = opts.countTableOperations ? await startTableTap(dynamoUrl) : undefined;
    if (dynamo) {
      journals = await startJournals(dynamoUrl, deployment.resources('AWS::DynamoDB::Table').map((r) => deployment.physicalId(r)), opts.pollMs);
      pitr = await startPitrEndpoint(dynamoUrl, journals);
    }
    functions = new Functions(functionSpecs(deployment), { region, servicesUrl, dynamoUrl: tap?.url ?? dynamoUrl, s3Url }, { logLevel: opts.logLevel });
    runner = new Runner(deployment, clients, functions, { pollMs: opts.pollMs });
    const rollouts = new Rollouts(deployment, functions, { pollMs: opts.pollMs });
    if (opts.autoRun !== false) runner.start();

    const table = deployment.physicalId(deployment.resources('AWS::DynamoDB::Table')[0]);
    const bucket = deployment.resources('AWS::S3::Bucket').map((r) => deployment.physicalId(r)).find((b) => b.includes('-files-')) ?? '';
    const bus = deployment.physicalId(deployment.resources('AWS::Events::EventBus')[0]);
    // The operator's own calls (the CLI's bootstrap of an admin token) reach the same table.
    process.env.AWS_REGION = region;
    process.env.AWS_ACCESS_KEY_ID ??= 'test';
    process.env.AWS_SECRET_ACCESS_KEY ??= 'test';
    process.env.AWS_ENDPOINT_URL_DYNAMODB = dynamoUrl;
    process.env.TABLE_NAME = table;
    resetDocumentClient();

    const server = createGateway(deployment, functions);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const host = !opts.host || opts.host === '127.0.0.1' || opts.host === '0.0.0.0' ? 'localhost' : opts.host;
    const lane: Lane = {
      apiUrl: `http://${host}:${port}/api`,
      servicesUrl,
      dynamoUrl,
      dynamoOperatorUrl: pitr?.url ?? dynamoUrl,
      pitrCaughtUp: async () => void (await Promise.all([...journals.values()].map((j) => j.caughtUp()))),
      clockMovable: !!moto,
      region,
      deployment,
      functions,
      runner,
      rollouts,
      clients,
      names: { table, bucket, bus },
      tableOperations: () => new Map(tap?.counts ?? []),
      authorizerInvocations: () => server.authorizerInvocations(),
      async advanceClock(ms) {
        if (!moto) throw new Error(`the clock of ${servicesUrl} cannot be moved`);
        await moto.advance(ms / 1000);
        functions!.clock[0] += ms;
      },
      async stop() {
        server.closeAllConnections();
        server.close();
        rollouts.stop();
        await runner!.stop();
        await functions!.stop();
        gate?.close();
        tap?.close();
        pitr?.close();
        await Promise.all([...journals.values()].map((j) => j.stop()));
        await Promise.all([moto?.stop(), dynamo?.stop()]);
        if (synthDir) await rm(synthDir, { recursive: true, force: true });
      },
    };
    return lane;
  } catch (err) {
    await runner?.stop();
    await functions?.stop();
    gate?.close();
    pitr?.close();
    await Promise.all([...journals.values()].map((j) => j.stop()));
    await Promise.all([moto?.stop(), dynamo?.stop()]);
    if (synthDir) await rm(synthDir, { recursive: true, force: true });
    throw err;
  }
}
