import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { resolve, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { queues, workers, eventRules } from '#catalog';
import { TwinPipeline, pipelineQueue, pipelineQueueDef, pipelineWorker } from './pipeline';
import { usePipelineRunner } from '#infra/state-machine';
import { resetDocumentClient } from '#infra/dynamo';
import { useBlobs, useProofStore } from '#infra/blobs';
import { useQueues } from '#infra/queues';
import { useTimers } from '#infra/timers';
import { useEvents, type DomainEvent } from '#infra/events';
import { LocalMarketplaceCredentials, useMarketplaceCredentials } from '#infra/marketplace-credentials';
import { LocalCarrierCredentials, useCarrierCredentials } from '#infra/carrier-credentials';
import { LocalSealer, useSecretSealer } from '#infra/sealed-secrets';
import { nowIso } from '#infra/clock';
import { seedAdminToken } from '#services/auth/accounts';
import { accessKeyFor, startDynamoLocal, ensureTable, type RunningDynamo } from './dynamodb-local';
import { nextSyncAfter, syncEveryMinutes } from '#core/orders/sync-schedule';
import { rateRetryEveryMinutes } from '#core/customs/exchange-rate';
import { now } from '#infra/clock';
import { LocalBlobs, LocalProofStore } from './blobs';
import { cursorKeyOf } from './private-files';
import { TwinJobs } from './jobs';
import { createTwinServer, twinAuthorizerCache } from './server';
import { startFakeCarriers, type FakeCarriers } from './fake-carriers';

const lambdasDir = resolve(dirname(fileURLToPath(import.meta.url)), '../lambdas');

export interface TwinOptions {
  /** 0 picks a free port. */
  port?: number;
  host?: string;
  /** Where DynamoDB Local's data, blobs and signing keys live; restarts keep them. */
  dataDir: string;
  tableName?: string;
  /** Use a DynamoDB already running (tests share one engine); otherwise start DynamoDB Local. */
  dynamoEndpoint?: string;
  adminToken?: string;
  /** Poll interval of the job dispatcher; 0 turns polling off (tests drive it with `jobs.runDue()`). */
  jobPollMs?: number;
  /** The fake carriers' tracking step (default 10 minutes): in transit, then out for delivery, then delivered. */
  carrierStepMs?: number;
  /** Sees every event published (the integration suite holds each to its schema: test/support/twin.ts). */
  checkEvent?: (e: DomainEvent) => void;
}

export interface Twin {
  url: string;
  apiUrl: string;
  jobs: TwinJobs;
  blobs: LocalBlobs;
  proofs: LocalProofStore;
  /** The fake FedEx, UPS, DHL Express and USPS APIs every carrier adapter calls here. */
  carriers: FakeCarriers;
  /** How many times the authorizer ran (API Gateway's cache answers the rest). */
  authorizerInvocations(): number;
  stop(): Promise<void>;
}

/** Sets the AWS environment the adapters read, pointing DynamoDB at the local engine. */
function localEnvironment(endpoint: string, tableName: string) {
  process.env.AWS_REGION ??= 'local';
  process.env.AWS_ACCESS_KEY_ID ??= 'local';
  process.env.AWS_SECRET_ACCESS_KEY ??= 'local';
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  process.env.AWS_ENDPOINT_URL_DYNAMODB = endpoint;
  process.env.TABLE_NAME = tableName;
  process.env.STAGE ??= 'local';
  resetDocumentClient();
}

export async function startTwin(opts: TwinOptions): Promise<Twin> {
  const dataDir = resolve(opts.dataDir);
  const tableName = opts.tableName ?? 'despacho';
  let dynamo: RunningDynamo | undefined;
  let carriers: FakeCarriers | undefined;
  let endpoint = opts.dynamoEndpoint;
  if (!endpoint) {
    // Its own engine: the data behind the data directory's access key (dynamodb-local.ts `accessKeyFor`).
    const dir = join(dataDir, 'dynamodb');
    process.env.AWS_REGION = 'local';
    const accessKeyId = (process.env.AWS_ACCESS_KEY_ID = accessKeyFor(dir, 'local'));
    process.env.AWS_SECRET_ACCESS_KEY = 'local';
    endpoint = (dynamo = await startDynamoLocal({ dataDir: dir, sharedDb: false, accessKeyId })).endpoint;
  }
  try {
    localEnvironment(endpoint, tableName);
    const admin = new DynamoDBClient({ endpoint });
    await ensureTable(admin, tableName);
    admin.destroy();

    // The page cursors' key: the data directory's (a stage's is a secret: lib/data.ts).
    process.env.CURSOR_KEY ??= cursorKeyOf(dataDir);

    let baseUrl = '';
    const blobs = new LocalBlobs(dataDir, () => baseUrl);
    useBlobs(blobs);
    const proofs = new LocalProofStore(dataDir, () => baseUrl);
    useProofStore(proofs);

    const cache = new Map<string, Promise<(e: unknown, c: unknown) => Promise<unknown>>>();
    const loadHandler = (module: string) => {
      let h = cache.get(module);
      if (!h) {
        h = import(pathToFileURL(join(lambdasDir, `${module}.ts`)).href).then((m) => m.handler);
        cache.set(module, h);
      }
      return h as Promise<never>;
    };

    let pipeline: TwinPipeline | undefined = undefined;
    const jobs = new TwinJobs({
      queues: { ...queues, [pipelineQueue]: pipelineQueueDef },
      workers: [...workers, pipelineWorker],
      eventRules,
      checkEvent: opts.checkEvent,
      loadWorker: async (w) => (w.id === pipelineWorker.id ? pipeline!.handler : loadHandler(w.handler)),
    });
    pipeline = new TwinPipeline(jobs, loadHandler);
    usePipelineRunner(pipeline);
    useQueues(jobs);
    useTimers(jobs);
    useEvents(jobs);
    useMarketplaceCredentials(new LocalMarketplaceCredentials(dataDir));
    useCarrierCredentials(new LocalCarrierCredentials(dataDir));
    // Webhook and manifest signing secrets are sealed with the same local key (no secret in clear in DynamoDB Local).
    useSecretSealer(new LocalSealer(dataDir));
    // Every carrier adapter calls the fakes (CARRIER_API_URL), never a carrier's real host.
    carriers = await startFakeCarriers({ stepMs: opts.carrierStepMs });
    process.env.CARRIER_API_URL = carriers.baseUrl;

    if (opts.adminToken) {
      await seedAdminToken(opts.adminToken, nowIso());
    }

    const authorizerCache = twinAuthorizerCache();
    const server = createTwinServer({ loadHandler, blobs, proofs, authorizerCache });
    server.listen(opts.port ?? 3000, opts.host ?? '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    // A local webhook receiver may not be the twin's own API (services/webhooks/webhooks.ts).
    process.env.TWIN_PORT = String(port);
    const host = opts.host && opts.host !== '0.0.0.0' ? opts.host : 'localhost';
    baseUrl = `http://${host === '127.0.0.1' ? 'localhost' : host}:${port}`;
    if (opts.jobPollMs !== 0) jobs.start(opts.jobPollMs ?? 200);
    const syncTimer = opts.jobPollMs !== 0 ? scheduleMarketplaceSync(jobs) : undefined;
    const pollTimer = opts.jobPollMs !== 0 ? scheduleTrackingPoll(jobs) : undefined;
    // The exchange-rate retry's stand-in: the twin has no official source (infra/exchange-rates/port.ts),
    // so a tick only hands over the batches of days whose rate is stored, never calling the internet.
    const rateRetryTimer = opts.jobPollMs !== 0 ? scheduleTicks(jobs, 'exchangeRateRetry', rateRetryEveryMinutes, 'exchange-rate-retry') : undefined;

    return {
      url: baseUrl,
      apiUrl: `${baseUrl}/api`,
      jobs,
      blobs,
      proofs,
      carriers,
      authorizerInvocations: () => authorizerCache.invocations,
      async stop() {
        syncTimer?.stop();
        pollTimer?.stop();
        rateRetryTimer?.stop();
        await carriers?.close();
        server.closeAllConnections();
        server.close();
        await jobs.stop();
        await dynamo?.stop();
      },
    };
  } catch (err) {
    await carriers?.close();
    await dynamo?.stop();
    throw err;
  }
}

/**
 * The twin's stand-in for the stack's EventBridge Scheduler schedule: at each boundary of the
 * sync interval (core/orders/sync-schedule.ts) it queues one `scheduled` tick, named by its time
 * so a restart in the same minute does not queue it twice.
 */
function scheduleMarketplaceSync(jobs: TwinJobs): { stop(): void } {
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    const next = nextSyncAfter(now(), syncEveryMinutes());
    timer = setTimeout(() => {
      void jobs.sendOnce('marketplaceSync', { kind: 'scheduled' }, `scheduled-sync-${next.toISOString()}`).finally(arm);
    }, Math.max(0, next.getTime() - now().getTime()));
    timer.unref();
  };
  arm();
  return { stop: () => clearTimeout(timer) };
}

/**
 * The twin's stand-in for the stack's tracking-poll schedule (lib/data.ts): every
 * TRACKING_POLL_MINUTES (default 5 on the twin, against the fakes' 10-minute steps) one
 * `scheduled` tick.
 */
function scheduleTrackingPoll(jobs: TwinJobs): { stop(): void } {
  const minutes = Number(process.env.TRACKING_POLL_MINUTES) > 0 ? Number(process.env.TRACKING_POLL_MINUTES) : 5;
  return scheduleTicks(jobs, 'trackingPoll', minutes, 'tracking-poll');
}

/**
 * A recurring schedule's stand-in: every `minutes` on the clock one `scheduled` tick on `queue`,
 * named by its time so a restart does not queue it twice.
 */
function scheduleTicks(jobs: TwinJobs, queue: string, minutes: number, name: string): { stop(): void } {
  const everyMs = minutes * 60_000;
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    const at = Math.ceil((now().getTime() + 1) / everyMs) * everyMs;
    timer = setTimeout(() => {
      void jobs.sendOnce(queue, { kind: 'scheduled' }, `${name}-${new Date(at).toISOString()}`).finally(arm);
    }, Math.max(0, at - now().getTime()));
    timer.unref();
  };
  arm();
  return { stop: () => clearTimeout(timer) };
}
