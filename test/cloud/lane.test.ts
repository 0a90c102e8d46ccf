import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { randomUUID } from 'node:crypto';
import { DeleteSecretCommand, GetSecretValueCommand, ListSecretsCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { GetScheduleCommand, ListSchedulesCommand } from '@aws-sdk/client-scheduler';
import { DynamoDBDocumentClient, GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { gunzipSync } from 'node:zlib';
import { DecryptCommand, GetKeyRotationStatusCommand } from '@aws-sdk/client-kms';
import { DeleteMessageBatchCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eventRules } from '#catalog';
import { sha256Checksum } from '#core/documents/files';
import { seedAdminToken } from '#services/auth/accounts';
import { startCloudLane, synthesize, type Lane } from '#twin/cloud/lane';
import { Functions } from '#twin/cloud/sandbox';
import { apiEvent, authorizerEvent } from '#twin/api-events';
import { pdf } from '#support/files';
import { answerOf } from '#support/http';
import { items, manifest, submitPath, untilStatus } from '#support/manifests';
import { manifestSignature } from '#core/manifests/signature';
import { toolAvailable } from '#support/tools';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

/*
 * The cloud lane (docs/developers/cloud-lane.md): the templates and Lambda bundles `cdk synth` writes,
 * run against moto_server and DynamoDB Local with the production adapters, and the scenarios that
 * cross services. Skipped, saying so, where moto_server is not on the PATH (CI_REQUIRE_CLOUD_TOOLS=1
 * makes that a failure).
 */

/** AWS_ENDPOINT_URL (LocalStack): the lane runs on it instead of moto_server and DynamoDB Local. */
const endpoint = process.env.AWS_ENDPOINT_URL || undefined;
const run = endpoint !== undefined || toolAvailable('moto_server', 'the cloud lane (test/cloud/lane.test.ts)');
/** Scenarios that move the clock (moto's and the functions'); an external endpoint's cannot be moved. */
const movedClock = endpoint ? it.skip : it;
if (endpoint) console.warn(`SKIPPED: the cloud lane's moved-clock scenarios (webhook retry schedule, dead-letter queue): ${endpoint}'s clock cannot be moved.`);
const adminToken = 'cloud-lane-admin-token-0001';
const fn = (id: string) => `despacho-dev-${id}`;

const webOrder = {
  customer: { name: 'María Pérez', email: 'maria@example.com' },
  shipping_address: { name: 'María Pérez', address1: 'Av. Corrientes 1234', city: 'Buenos Aires', state: 'CABA', postal_code: 'C1043', country: 'AR' },
  items: [{ sku: 'MUG-01', name: 'Taza', quantity: 2, price: 10.1, weight: 0.4 }],
  currency: 'USD',
  shipping: 5,
  financial_status: 'paid',
};

let assemblyDir: string;
let lane: Lane;
const deployDirs: string[] = [];

/**
 * The lane's assembly as the next commit would synthesize it when that commit changed function
 * `name` alone: the same templates, every other bundle the same bytes, and this function's bundle
 * rewritten by `change` (its source).
 */
function assemblyWith(name: string, change: (bundle: string) => string): string {
  const dir = mkdtempSync(join(tmpdir(), 'despacho-deploy-'));
  deployDirs.push(dir);
  for (const entry of readdirSync(assemblyDir)) {
    const src = join(assemblyDir, entry);
    if (statSync(src).isDirectory()) symlinkSync(src, join(dir, entry));
    else cpSync(src, join(dir, entry));
  }
  const file = lane.functions.specs.get(name)!.file;
  const asset = relative(assemblyDir, dirname(file));
  rmSync(join(dir, asset));
  cpSync(join(assemblyDir, asset), join(dir, asset), { recursive: true });
  writeFileSync(join(dir, asset, basename(file)), change(readFileSync(file, 'utf8')));
  return dir;
}

async function call(method: string, path: string, o: { token?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...o.headers, authorization: `Bearer ${o.token ?? adminToken}` };
  if (o.body !== undefined) headers['content-type'] = 'application/json';
  return answerOf(await fetch(lane.apiUrl + path, { method, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body) }));
}

/** Every scenario but the first runs with the runner on (start() is idempotent). */
beforeEach(() => {
  if (!expect.getState().currentTestName?.includes('routes every domain event')) lane.runner.start();
});

/** A partner account and a token with every scope a partner may hold (none named), or with `scopes`. */
async function account(name: string, scopes?: string[]) {
  const acc = await call('POST', '/v1/admin/accounts', { body: { name, kind: 'partner' } });
  const tok = await call('POST', '/v1/admin/tokens', { body: { account_id: acc.body.data.id, name, role: 'partner', ...(scopes ? { scopes } : {}) } });
  if (tok.status !== 201) throw new Error(`token: ${tok.text}`);
  return { accountId: acc.body.data.id as number, token: tok.body.data.token as string };
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** A GET of the couriers.status group polled as a polite client does (test/support/manifests.ts `untilStatus`). */
const untilStatusOf = <T>(token: string, path: string, done: (body: any) => T | undefined, timeoutMs = 120_000) =>
  untilStatus((p) => call('GET', p, { token }), path, done, timeoutMs);

/** A message body as JSON, or undefined (the poisoned-message scenario sends `not json`). */
function jsonOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const queueUrl = (queue: string) => {
  const r = lane.deployment.resources('AWS::SQS::Queue').find((q) => q.logicalId.startsWith(queue));
  if (!r) throw new Error(`no queue ${queue} in the template`);
  return lane.deployment.physicalId(r);
};

async function depth(url: string): Promise<number> {
  const res = await lane.clients.sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'] }));
  const a = res.Attributes ?? {};
  return Number(a.ApproximateNumberOfMessages ?? 0) + Number(a.ApproximateNumberOfMessagesNotVisible ?? 0) + Number(a.ApproximateNumberOfMessagesDelayed ?? 0);
}

describe.runIf(run)('the cloud lane: the synthesized stacks on moto_server and DynamoDB Local', () => {
  beforeAll(async () => {
    assemblyDir = mkdtempSync(join(tmpdir(), 'despacho-cdk-'));
    // As a canary stage (staging and prod deploy so): the rollback scenarios play its CodeDeploy groups.
    await synthesize('dev', assemblyDir, undefined, { rollout: 'canary' });
    lane = await startCloudLane({ assemblyDir, endpoint, autoRun: false, logLevel: 'SILENT', pollMs: 100 });
    await seedAdminToken(adminToken, new Date().toISOString());
    // A hang guard, not a speed requirement: cdk synth (esbuild of every function) and the lane's
    // start took about 300 s on a loaded 2-core machine (load average 15, plus a CPU burner).
  }, 900_000);

  afterAll(async () => {
    await lane?.stop();
    if (assemblyDir) rmSync(assemblyDir, { recursive: true, force: true });
    for (const dir of deployDirs) rmSync(dir, { recursive: true, force: true });
  });

  it('routes every domain event the production adapter publishes to the queue its rule targets, and to no other', async () => {
    // The runner is not started yet: nothing consumes the queues, so what the rules delivered stays there.
    const { eventBridge, domainEvent } = await import('#infra/events');
    process.env.EVENT_BUS_NAME = lane.names.bus;
    process.env.AWS_ENDPOINT_URL_EVENTBRIDGE = lane.servicesUrl;
    const types = [...new Set(eventRules.flatMap((r) => r.eventTypes)), 'webhook.test', 'manifest.unknown'];
    await eventBridge.publish(types.map((type) => domainEvent(type, 1, { type })));
    const received = new Map<string, string[]>();
    for (const rule of eventRules) {
      const url = queueUrl(rule.queue.charAt(0).toUpperCase() + rule.queue.slice(1) + 'Queue');
      const got: string[] = [];
      for (;;) {
        const res = await lane.clients.sqs.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, VisibilityTimeout: 300 }));
        if (!res.Messages?.length) break;
        for (const m of res.Messages) got.push(JSON.parse(m.Body!)['detail-type']);
        await lane.clients.sqs.send(new DeleteMessageBatchCommand({ QueueUrl: url, Entries: res.Messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })) }));
      }
      received.set(rule.queue, got.sort());
    }
    for (const rule of eventRules) expect(received.get(rule.queue), rule.id).toEqual([...rule.eventTypes].sort());
    lane.runner.start();
    expect(lane.runner.faults).toEqual([]);
  });

  it('serves the API from the bundles with the template environment, and the authorizer guards it', async () => {
    const health = await answerOf(await fetch(`${lane.apiUrl}/health`));
    expect(health.status).toBe(200);
    expect(health.body.data.stage).toBe('dev');
    expect((await call('GET', '/v1/orders', { token: 'dsp_not-a-token' })).status).toBe(401);
    expect((await call('GET', '/v1/nowhere')).status).toBe(404);
    // The dashboard's page and its script, a file its bundle must ship beside index.mjs.
    const root = lane.apiUrl.replace(/\/api$/, '');
    const page = await fetch(`${root}/dashboard`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const script = await fetch(`${root}/dashboard/app.js`);
    expect(script.status).toBe(200);
    expect((await script.text()).length).toBeGreaterThan(1000);
    const { token } = await account('Lane Orders SA');
    const order = await call('POST', '/v1/orders', {
      token,
      body: webOrder,
      headers: { 'idempotency-key': randomUUID() },
    });
    expect(order.status).toBe(201);
    expect(order.body.data.order_number).toMatch(/^WEB-/);
    // What the function wrote (its metric's EMF line among it) is its log stream, as CloudWatch
    // keeps it, not the runner's output.
    expect(lane.functions.logsOf(fn('OrdersCreate')).some((line) => line.includes('"OrdersCreated"'))).toBe(true);
  });

  it('uploads a document by the presigned POST to S3 and downloads it by a presigned GET', async () => {
    const { token } = await account('Lane Documents SA');
    const file = pdf('cloud lane');
    const declared = await call('POST', '/v1/transport/documents/upload-url', {
      token,
      body: { document_type: 'manifest', filename: 'vuelo.pdf', file_size: file.length, checksum: sha256Checksum(file) },
    });
    expect(declared.status).toBe(201);
    const { upload_url, fields, upload_id } = declared.body.data;
    expect(upload_url).toContain(lane.names.bucket);
    // The policy S3 enforces: the key, the type and the size range.
    const policy = JSON.parse(Buffer.from(fields.Policy, 'base64').toString());
    expect(policy.conditions).toEqual(expect.arrayContaining([['content-length-range', 1, file.length], ['eq', '$Content-Type', 'application/pdf'], { key: fields.key }, { bucket: lane.names.bucket }]));
    const post = (form: Record<string, string>, data: Buffer) => {
      const body = new FormData();
      for (const [k, v] of Object.entries(form)) body.append(k, v);
      body.append('file', new Blob([data]), 'vuelo.pdf');
      return fetch(upload_url, { method: 'POST', body });
    };
    if (lane.clockMovable) {
      // moto stores any POST; the lane checks the policy as S3 does (docs/developers/cloud-lane.md).
      expect((await post(fields, Buffer.concat([file, Buffer.alloc(1)]))).status).toBe(400);
      expect((await post({ ...fields, 'Content-Type': 'text/html' }, file)).status).toBe(403);
      expect((await post({ ...fields, key: `${fields.key}.exe` }, file)).status).toBe(403);
      expect((await post({ ...fields, 'x-amz-meta-owner': 'someone' }, file)).status).toBe(403);
      expect((await post({ ...fields, Policy: Buffer.from(JSON.stringify({ ...policy, conditions: policy.conditions.filter((c: unknown) => !Array.isArray(c)) })).toString('base64') }, file)).status).toBe(403);
    }
    expect((await post(fields, file)).status).toBe(204);
    const done = await call('POST', `/v1/transport/documents/uploads/${upload_id}/complete`, { token });
    expect(done.status).toBe(201);
    const link = await call('GET', `/v1/transport/documents/${done.body.data.id}/download`, { token });
    expect(link.status).toBe(200);
    const url = new URL(link.body.data.download_url);
    expect(url.searchParams.get('X-Amz-Expires')).toBe(String(link.body.data.expires_in_minutes * 60));
    const got = await fetch(url);
    expect(got.status).toBe(200);
    expect(Buffer.from(await got.arrayBuffer()).equals(file)).toBe(true);
    if (lane.clockMovable) {
      const late = await call('POST', '/v1/transport/documents/upload-url', {
        token,
        body: { document_type: 'manifest', filename: 'tarde.pdf', file_size: file.length, checksum: sha256Checksum(file) },
      });
      await lane.advanceClock(16 * 60_000);
      const form = new FormData();
      for (const [k, v] of Object.entries(late.body.data.fields as Record<string, string>)) form.append(k, v);
      form.append('file', new Blob([file]), 'tarde.pdf');
      const expired = await fetch(late.body.data.upload_url, { method: 'POST', body: form });
      expect(expired.status).toBe(403);
      expect(await expired.text()).toContain('Policy expired');
    }
    // S3 answers with the Content-Disposition the URL asks for; moto 5.2 ignores it (docs/developers/cloud-lane.md).
    expect(url.searchParams.get('response-content-disposition')).toContain('vuelo.pdf');
  });

  describe('a 1,000-item manifest from submission to download through the synthesized state machine', () => {
    // One flow in steps, so that none runs near the runner's limits (issue 45); a step says so
    // when the one before did not leave it what it needs.
    const flow: { token?: string; batchId?: string } = {};

    it('answers the submission 202 and lists the batch once the intake function wrote its items', async () => {
      const { token } = await account('Lane Couriers SA');
      const sent = await call('POST', '/v1/couriers/default/manifests/webhook', { token, body: { mawbNumber: '176-12345675', items: items(1000) }, headers: { 'idempotency-key': randomUUID() } });
      expect(sent.status).toBe(202);
      const listed = await untilStatusOf(token, '/v1/couriers/manifests', (b) => b.data?.[0]);
      expect(listed.summary.total_articles).toBe(1000);
      Object.assign(flow, { token, batchId: listed.batch_id as string });
    }, 180_000);

    it('runs it through the state machine to completed', async () => {
      const { token, batchId } = flow;
      if (!token || !batchId) throw new Error('the submission (the test before) left no batch: nothing to run');
      const status = await untilStatusOf(token, `/v1/couriers/manifests/${batchId}/pipeline-status`, (b) =>
        b.data?.status === 'completed' || b.data?.status === 'failed' ? b.data : undefined,
      );
      expect(status).toMatchObject({ status: 'completed', overall_progress: 100 });
    }, 180_000);

    it('answers its download with every product, and every execution of the state machine ends SUCCEEDED', async () => {
      const { token, batchId } = flow;
      if (!token || !batchId) throw new Error('the submission (the test before) left no batch: nothing to download');
      const download = await call('GET', `/v1/couriers/manifests/${batchId}/download`, { token });
      expect(download.status).toBe(200);
      expect(download.body.data.total_products).toBe(1000);
      // The batch completes before its execution ends: Finish makes the CSV and the workbook after (docs/partners/processing.md, downloads).
      const executions = await until('the executions to end', async () => {
        const all = [...lane.runner.executions.values()];
        return all.length && all.every((e) => e.status !== 'RUNNING') ? all : undefined;
      }, 60_000);
      expect(executions.every((e) => e.status === 'SUCCEEDED')).toBe(true);
      expect(lane.runner.faults).toEqual([]);
    }, 180_000);
  });

  it('marks the manifest failed and emits processing_failed when a stage fails for good (the Catch path)', async () => {
    const { token } = await account('Lane Failing SA');
    const hook = await call('POST', '/webhook-subscriptions', { token, body: { endpoint_url: 'https://receiver.invalid/hooks', events: ['manifest.processing_failed'] } });
    expect(hook.status).toBe(201);
    const stop = lane.functions.failWhen(fn('PipelineStagePage'), (e) => e?.stage === 'ai', 'model unavailable');
    try {
      await call('POST', '/v1/couriers/default/manifests/webhook', { token, body: { mawbNumber: '176-12345675', items: items(20) }, headers: { 'idempotency-key': randomUUID() } });
      const batchId = await untilStatusOf(token, '/v1/couriers/manifests', (list) => (list.data?.[0]?.status === 'failed' ? (list.data[0].batch_id as string) : undefined));
      const status = await call('GET', `/v1/couriers/manifests/${batchId}/pipeline-status`, { token });
      expect(status.body.data).toMatchObject({ status: 'failed', error: 'model unavailable' });
      // Web services runs beside ai: it completed, or the failure stopped it (as a Parallel state stops its other branch).
      const steps = Object.fromEntries(status.body.data.pipeline_steps.map((s: { key: string; status: string }) => [s.key, s.status]));
      expect(steps).toMatchObject({ classification: 'completed', ai: 'failed', calculations: 'pending' });
      expect(['completed', 'processing']).toContain(steps.webservices);
      const deliveries = await until('the processing_failed delivery', async () => {
        const res = await call('GET', `/webhook-subscriptions/${hook.body.data.id}/deliveries`, { token });
        return res.body.data?.length ? res.body.data : undefined;
      });
      expect(deliveries[0]).toMatchObject({ event_type: 'manifest.processing_failed' });
    } finally {
      stop();
    }
  }, 180_000);

  movedClock('retries a failing webhook at +1 min and +5 min on SQS delays, then +30 min, +2 h and +24 h on one-time Scheduler schedules', async () => {
    const { token } = await account('Lane Hooks SA');
    const hook = await call('POST', '/webhook-subscriptions', { token, body: { endpoint_url: 'https://receiver.invalid/hooks', events: ['order.created'] } });
    expect(hook.status).toBe(201);
    const order = await call('POST', '/v1/orders', {
      token,
      body: webOrder,
      headers: { 'idempotency-key': randomUUID() },
    });
    expect(order.status).toBe(201);
    const delivery = async () => (await call('GET', `/webhook-subscriptions/${hook.body.data.id}/deliveries`, { token })).body.data[0];
    /**
     * The event that matters: the runner handed the delivery function the message of attempt `n`
     * of this subscription's delivery and knows its outcome. A loaded machine makes it come later,
     * never not at all; the queue's other messages (the previous scenario's retries, delayed on
     * the same queue) do not count, as they did when this waited for the queue to be empty.
     */
    const attemptTaken = (n: number, eventId?: string) =>
      lane.runner.handled((m) => {
        const job = jsonOr(m.body) as { subscriptionId?: number; eventId?: string; attempt?: number } | undefined;
        return job?.subscriptionId === hook.body.data.id && (eventId === undefined || job?.eventId === eventId) && job?.attempt === n;
      });
    expect((await attemptTaken(1)).outcome).toBe('deleted');
    const eventId = (await delivery()).event_id as string;
    /** The attempts this delivery's one-time schedules are set for (other scenarios' deliveries have their own). */
    const scheduled = async () => {
      const res = await lane.clients.scheduler.send(new ListSchedulesCommand({ GroupName: 'despacho-dev', NamePrefix: 't-' }));
      // A schedule listed may fire and be deleted by the runner before it is read (another scenario's, or this one's): skipped.
      const inputs = await Promise.all(
        (res.Schedules ?? []).map(async (x) =>
          (await lane.clients.scheduler.send(new GetScheduleCommand({ Name: x.Name!, GroupName: x.GroupName })).catch((err: Error) => (err.name === 'ResourceNotFoundException' ? undefined : Promise.reject(err))))?.Target?.Input,
        ),
      );
      return inputs.filter((input): input is string => input !== undefined).map((input) => JSON.parse(input)).filter((job) => job.eventId === eventId).map((job) => job.attempt as number);
    };
    // Another delivery's retry waits on the same queue, as the previous scenario's does when the
    // machine is slow (its +5 min retry still delayed when this one's message comes twice): the
    // waits below must not depend on the queue being otherwise empty. (Its subscription does not
    // exist, so the worker drops it when it comes due.)
    await lane.clients.sqs.send(
      new SendMessageCommand({ QueueUrl: queueUrl('WebhookDeliveryQueue'), MessageBody: JSON.stringify({ subscriptionId: 999_999, eventId: 'evt_elsewhere', attempt: 3 }), DelaySeconds: 900 }),
    );
    const waits = [60, 300, 1800, 7200, 86400];
    for (const [i, seconds] of waits.entries()) {
      const before = await delivery();
      expect(before.attempts).toHaveLength(i + 1);
      // The next attempt is due `seconds` after the last one ended (its start is a little earlier).
      const due = Date.parse(before.next_attempt_at);
      expect(due - Date.parse(before.attempts[i].attempted_at)).toBeGreaterThanOrEqual(seconds * 1000);
      expect(due - Date.parse(before.attempts[i].attempted_at)).toBeLessThan(seconds * 1000 + 30_000);
      if (seconds > 900) {
        expect(await scheduled()).toEqual([i + 2]);
        if (i === 2) {
          // At least once: the message of the attempt just made comes again (as after a visibility
          // timeout). The worker sets the next attempt's timer again; it stays one schedule.
          const again = { subscriptionId: hook.body.data.id, eventId, attempt: i + 1 };
          const sent = await lane.clients.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl('WebhookDeliveryQueue'), MessageBody: JSON.stringify(again) }));
          expect((await lane.runner.handled((m) => m.messageId === sent.MessageId)).outcome).toBe('deleted');
          expect(await scheduled()).toEqual([i + 2]);
          expect((await delivery()).attempts).toHaveLength(i + 1);
        }
      } else {
        expect(await scheduled()).toEqual([]);
      }
      // Past the due time (the lane's clock), the next attempt is made; it is never made before it,
      // which its time shows (a schedule's at() has whole seconds, so it may fire within that second).
      await lane.advanceClock(Math.max(0, due + 1000 - lane.runner.now().getTime()));
      const taken = await attemptTaken(i + 2, eventId);
      expect(taken.outcome).toBe('deleted');
      const after = await delivery();
      expect(after.attempts, `lane time ${lane.runner.now().toISOString()}, faults ${JSON.stringify(lane.runner.faults)}`).toHaveLength(i + 2);
      expect(Date.parse(after.attempts[i + 1].attempted_at)).toBeGreaterThanOrEqual(Math.floor(due / 1000) * 1000);
    }
    const last = await call('GET', `/webhook-subscriptions/${hook.body.data.id}/deliveries`, { token });
    expect(last.body.data[0]).toMatchObject({ state: 'failed' });
    expect(last.body.data[0].attempts).toHaveLength(6);
    expect(last.body.data[0].attempts.every((a: { error: string }) => a.error === 'ENOTFOUND')).toBe(true);
    // Each one-time schedule deleted itself after it fired.
    expect(await scheduled()).toEqual([]);
    expect(lane.runner.faults).toEqual([]);
  }, 180_000);

  movedClock('moves a poisoned message to the dead-letter queue after maxReceiveCount receives', async () => {
    const url = queueUrl('WebhookDeliveryQueue');
    const dlq = queueUrl('WebhookDeliveryDlq');
    const sent = await lane.clients.sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'not json' }));
    const failures = () => lane.runner.handledMessages.filter((m) => m.messageId === sent.MessageId && m.outcome === 'failed').length;
    // Each round waits for its event, not for a time: the worker has taken the message and failed
    // on it (it stays on the queue, invisible), then the clock passes its visibility timeout; until
    // a receive past maxReceiveCount moves it to the dead-letter queue.
    for (let round = 0; ; round++) {
      if (round === 8) throw new Error(`the poisoned message is not in the dead-letter queue after ${failures()} failed receives`);
      const now = await until(`failed receive ${round + 1} of the poisoned message, or the dead-letter queue`, async () => ((await depth(dlq)) === 1 ? 'dead-lettered' : failures() > round ? 'failed' : undefined));
      if (now === 'dead-lettered') break;
      await lane.advanceClock(61_000);
    }
    const res = await lane.clients.sqs.send(new ReceiveMessageCommand({ QueueUrl: dlq, MessageSystemAttributeNames: ['ApproximateReceiveCount'] }));
    expect(res.Messages?.[0].Body).toBe('not json');
    expect(Number(res.Messages?.[0].Attributes?.ApproximateReceiveCount)).toBeGreaterThanOrEqual(5);
  }, 120_000);

  it('keeps marketplace credentials in Secrets Manager: stored on connect, read by the sync, deleted on disconnect', async () => {
    const { token, accountId } = await account('Lane Market SA');
    const connect = await call('PUT', '/v1/orders/marketplaces/shopify', { token, body: { base_url: 'https://acme.myshopify.com', credentials: { accessToken: 'shpat_secret' } } });
    expect(connect.status).toBe(200);
    expect(JSON.stringify(connect.body)).not.toContain('shpat_secret');
    const secrets = new SecretsManagerClient({ region: lane.region, endpoint: lane.servicesUrl, credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
    const name = `despacho-dev/marketplace/${accountId}/shopify`;
    const secret = await secrets.send(new GetSecretValueCommand({ SecretId: name }));
    expect(secret.SecretString).toContain('shpat_secret');
    // The sync worker reads the secret, then calls the shop, which does not resolve offline. The
    // schedule's tick (the lane fires it on its own clock) may have started this account's sync
    // since it connected: then the request is 409 naming that sync, and that sync is the one to
    // follow. A slow machine only widens that window; either way a sync reads the secret.
    const started = await call('POST', '/v1/orders/sync', { token, body: {} });
    expect([202, 409], started.text).toContain(started.status);
    const syncId = (started.status === 202 ? started.body.data.sync_id : started.body.sync_id) as string;
    const sync = await until('the sync', async () => {
      const res = await call('GET', '/v1/orders/sync/status', { token });
      return res.body.data?.last_sync?.status === 'failed' ? res.body.data.last_sync : undefined;
    });
    expect(sync).toMatchObject({ sync_id: syncId, trigger: started.status === 202 ? 'manual' : 'scheduled' });
    expect(sync.channels.shopify.error).not.toMatch(/credential|accessToken/i);
    const removed = await call('DELETE', '/v1/orders/marketplaces/shopify', { token });
    expect(removed.status).toBe(200);
    const left = await secrets.send(new ListSecretsCommand({ Filters: [{ Key: 'name', Values: [name] }] }));
    expect((left.SecretList ?? []).filter((s) => !s.DeletedDate)).toEqual([]);
    await secrets.send(new DeleteSecretCommand({ SecretId: name, ForceDeleteWithoutRecovery: true })).catch(() => undefined);
  });

  it('keeps webhook and manifest signing secrets as KMS ciphertext at rest, under the stack\'s rotated key, bound to their item', async () => {
    const { token, accountId } = await account('Lane Sealed SA');
    const hook = await call('POST', '/webhook-subscriptions', { token, body: { endpoint_url: 'https://receiver.invalid/hooks', events: ['order.created'] } });
    expect(hook.status).toBe(201);
    const hookSecret = hook.body.data.hmac_secret as string;
    const signing = await call('POST', `/v1/admin/accounts/${accountId}/signing-secret`);
    expect(signing.status).toBe(201);
    const signingSecret = signing.body.data.secret as string;

    // The stored items: ciphertext of KMS only, no secret (nor its random part) in clear anywhere in the table.
    const rows: Record<string, any>[] = [];
    const doc = DynamoDBDocumentClient.from(lane.clients.dynamo);
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await doc.send(new ScanCommand({ TableName: lane.names.table, ExclusiveStartKey }));
      rows.push(...(page.Items ?? []));
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    const text = JSON.stringify(rows);
    for (const secret of [hookSecret, signingSecret]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(secret.slice(secret.indexOf('_') + 1));
    }
    const subItem = rows.find((r) => r.__edb_e__ === 'webhookSubscription' && r.id === hook.body.data.id)!;
    const accountItem = rows.find((r) => r.__edb_e__ === 'account' && r.id === accountId)!;
    expect(subItem).not.toHaveProperty('secret');
    expect(accountItem).not.toHaveProperty('manifestSigningSecret');
    expect(subItem.sealedSecret).toMatch(/^kms1\./);
    expect(accountItem.sealedSigningSecret).toMatch(/^kms1\./);

    // Sealed under the data stack's key, which rotates, and bound to its subscription.
    const [key] = lane.deployment.resources('AWS::KMS::Key').filter((r) => r.stack.name.endsWith('-data'));
    const keyId = lane.deployment.physicalId(key);
    expect((await lane.clients.kms.send(new GetKeyRotationStatusCommand({ KeyId: keyId }))).KeyRotationEnabled).toBe(true);
    const blob = Buffer.from(String(subItem.sealedSecret).slice('kms1.'.length), 'base64');
    const context = { purpose: 'webhook-signing', account: String(accountId), subscription: String(hook.body.data.id) };
    const opened = await lane.clients.kms.send(new DecryptCommand({ CiphertextBlob: blob, EncryptionContext: context }));
    expect(Buffer.from(opened.Plaintext!).toString()).toBe(hookSecret);
    expect(opened.KeyId).toContain(keyId);
    await expect(lane.clients.kms.send(new DecryptCommand({ CiphertextBlob: blob, EncryptionContext: { ...context, subscription: '999999' } }))).rejects.toThrow();

    // The functions open them: the test delivery is signed and sent (the host does not resolve offline),
    // and X-Signature is verified against the sealed secret.
    const test = await call('POST', `/webhook-subscriptions/${hook.body.data.id}/test`, { token });
    expect(test.status).toBe(502);
    expect(test.body.data.error).toBe('ENOTFOUND');
    const body = manifest(1);
    const signed = (secret: string) => ({ token, body, headers: { 'x-signature': manifestSignature(secret, JSON.stringify(body)) } });
    expect((await call('POST', submitPath(), signed('another secret'))).status).toBe(401);
    expect((await call('POST', submitPath(), signed(signingSecret))).status).toBe(202);
  });

  movedClock("keeps an account's order snapshot: an order's write asks the OrderViews worker, which writes the snapshot to the files bucket and records its version", async () => {
    const { token, accountId } = await account('Lane Views SA');
    const order = await call('POST', '/v1/orders', { token, body: webOrder, headers: { 'idempotency-key': randomUUID() } });
    expect(order.status).toBe(201);
    // The account's first change asks for its snapshot in five minutes (an SQS delay on the lane's clock).
    const asked = lane.runner.handled((m) => m.functionName === fn('OrderViews') && (jsonOr(m.body) as { accountId?: number } | undefined)?.accountId === accountId);
    await lane.advanceClock(301_000);
    expect((await asked).outcome).toBe('deleted');
    const object = await lane.clients.s3.send(new GetObjectCommand({ Bucket: lane.names.bucket, Key: `views/orders/${accountId}.json.gz` }));
    const snapshot = JSON.parse(gunzipSync(Buffer.from(await object.Body!.transformToByteArray())).toString('utf8'));
    expect(snapshot.version).toBe(1);
    expect(snapshot.rows.map((r: unknown[]) => [r[0], r[1], r[5]])).toEqual([[order.body.data.id, order.body.data.order_number, 'María Pérez']]);
    const meta = await DynamoDBDocumentClient.from(lane.clients.dynamo).send(new GetCommand({ TableName: lane.names.table, Key: { pk: `ORDERMETA#${accountId}`, sk: 'META' } }));
    expect(meta.Item).toMatchObject({ version: 1, viewVersion: 1 });
    const list = await call('GET', '/v1/orders', { token });
    expect(list.body.data.orders.map((o: { id: number }) => o.id)).toEqual([order.body.data.id]);
  }, 120_000);

  describe('a deploy and its rollback (CodeDeploy played on the lane)', () => {
    const list = fn('OrdersList');
    /** Each of `n` calls of GET /v1/orders: its status. */
    const lists = async (token: string, n: number) => {
      const out: number[] = [];
      for (let i = 0; i < n; i++) out.push((await call('GET', '/v1/orders', { token })).status);
      return out;
    };

    movedClock("rolls a bad version back by its live alias's alarm after 10% of the calls met it, and leaves the other functions alone", async () => {
      const { token } = await account('Lane Rollout SA');
      // Five minutes on, so the alarms' periods hold nothing of the earlier scenarios.
      await lane.advanceClock(660_000);
      // A commit that breaks the list: every call throws, as a handler reading a field of undefined would.
      const bad = assemblyWith(list, () => "export const handler = async () => { const page = undefined; return page.items; };\n");
      const deploy = lane.rollouts.deploy(bad);
      expect(deploy.functions).toEqual([expect.objectContaining({ functionName: list, config: 'CodeDeployDefault.LambdaCanary10Percent5Minutes', fromVersion: '1', toVersion: '2', status: 'InProgress' })]);
      expect(deploy.functions[0].alarms).toEqual(expect.arrayContaining([`${list}-live-errors`, 'despacho-dev-area-orders']));
      expect(lane.functions.routing(list)).toEqual({ version: '1', additional: { version: '2', weight: 0.1 } });
      expect(lane.functions.routing(fn('OrdersShow'))).toEqual({ version: '1' });

      const statuses = await lists(token, 20);
      const ended = await lane.rollouts.settled(deploy);
      // The tenth call met the new version; the alarm stopped the shift before a second could.
      expect(statuses.filter((s) => s === 500).length).toBeGreaterThanOrEqual(1);
      expect(statuses.filter((s) => s === 500).length).toBeLessThanOrEqual(2);
      expect(ended.status).toBe('RolledBack');
      expect(ended.stoppedBy).toMatchObject({ functionName: list, alarms: expect.arrayContaining([`${list}-live-errors`]) });
      expect(ended.functions[0].status).toBe('Stopped');
      expect(lane.functions.routing(list)).toEqual({ version: '1' });
      expect(await lists(token, 10)).toEqual(Array(10).fill(200));
      expect(lane.functions.invocations(list).slice(-10).every((s) => s.version === '1' && !s.error)).toBe(true);
    }, 120_000);

    movedClock('shifts a sound version 10% then, after five minutes with its alarms quiet, all the calls', async () => {
      const { token } = await account('Lane Rollout Two SA');
      // Past the periods of the rolled-back deploy's errors: its area's alarms are quiet again.
      await lane.advanceClock(660_000);
      const sound = assemblyWith(list, (bundle) => `${bundle}\n// the next commit\n`);
      const deploy = lane.rollouts.deploy(sound);
      expect(deploy.functions.map((f) => [f.functionName, f.fromVersion, f.toVersion])).toEqual([[list, '1', '3']]);
      expect(await lists(token, 20)).toEqual(Array(20).fill(200));
      expect(lane.functions.invocations(list).slice(-20).filter((s) => s.version === '3')).toHaveLength(2);
      expect(lane.functions.routing(list)).toEqual({ version: '1', additional: { version: '3', weight: 0.1 } });

      await lane.advanceClock(300_000);
      const ended = await lane.rollouts.settled(deploy);
      expect(ended).toMatchObject({ status: 'Succeeded', functions: [{ functionName: list, status: 'Succeeded', weight: 1 }] });
      expect(lane.functions.routing(list)).toEqual({ version: '3' });
      expect(await lists(token, 5)).toEqual(Array(5).fill(200));
      expect(lane.functions.invocations(list).slice(-5).every((s) => s.version === '3')).toBe(true);
    }, 120_000);

    it("counts a call's Duration as the time it ran, though the lane's clock moved by minutes during it", async () => {
      // A worker in flight while a test moves the clock ran for a second, not eleven minutes: read
      // as eleven, its duration alarm would roll back an unrelated deploy of its area.
      const running = lane.functions.invoke(list, {}).catch(() => undefined);
      lane.functions.clock[0] += 660_000;
      try {
        await running;
      } finally {
        lane.functions.clock[0] -= 660_000;
      }
      const [last] = lane.functions.invocations(list).slice(-1);
      expect(last.durationMs).toBeLessThan(60_000);
    });
  });

  describe.runIf(!endpoint && toolAvailable('aws', "the cloud lane's restore drill (the AWS CLI)"))('the restore drill (docs/operators/runbook.md), with the AWS CLI', () => {
    /** The runbook's command, as an operator runs it, against the lane's DynamoDB. */
    const aws = async (...args: string[]) => {
      const { stdout } = await promisify(execFile)('aws', ['dynamodb', ...args, '--endpoint-url', lane.dynamoOperatorUrl, '--output', 'json'], {
        env: { ...process.env, AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_DEFAULT_REGION: lane.region },
      });
      return stdout.trim() ? JSON.parse(stdout) : {};
    };
    /** Waits for the next whole second of the real clock (DynamoDB's), and answers it in seconds. */
    const nextSecond = async () => {
      const s = Math.floor(Date.now() / 1000) + 1;
      while (Date.now() < s * 1000) await new Promise((r) => setTimeout(r, 10));
      return s;
    };
    const orderKey = async (id: number) => {
      const doc = DynamoDBDocumentClient.from(lane.clients.dynamo);
      let ExclusiveStartKey: Record<string, unknown> | undefined;
      do {
        const page = await doc.send(new ScanCommand({ TableName: lane.names.table, ExclusiveStartKey }));
        const item = page.Items?.find((r) => r.__edb_e__ === 'order' && r.id === id);
        if (item) return { pk: { S: String(item.pk) }, sk: { S: String(item.sk) } };
        ExclusiveStartKey = page.LastEvaluatedKey;
      } while (ExclusiveStartKey);
      throw new Error(`no order ${id} in the table`);
    };

    it('restores the table to a second before the damage into a new table, and puts the lost order back into the stage', async () => {
      const { token } = await account('Lane Drill SA');
      const order = async () => (await call('POST', '/v1/orders', { token, body: webOrder, headers: { 'idempotency-key': randomUUID() } })).body.data as { id: number };
      // 1. A known order, the time T, then the damage: its item deleted by mistake.
      const known = await order();
      const key = await orderKey(known.id);
      const before = await call('GET', `/v1/orders/${known.id}`, { token });
      expect(before.status).toBe(200);
      // What the lane's point-in-time recovery reads is in (it reads the stream every pollMs).
      await lane.pitrCaughtUp();
      const t = await nextSecond();
      await nextSecond();
      await aws('delete-item', '--table-name', lane.names.table, '--key', JSON.stringify(key));
      const later = await order();
      expect((await call('GET', `/v1/orders/${known.id}`, { token })).status).toBe(404);

      // 2. Restored to T, into a new table.
      const drill = `${lane.names.table}-drill`;
      const restored = await aws('restore-table-to-point-in-time', '--source-table-name', lane.names.table, '--target-table-name', drill, '--restore-date-time', new Date(t * 1000).toISOString());
      expect(restored.TableDescription).toMatchObject({ TableName: drill, RestoreSummary: { RestoreInProgress: false } });
      await aws('wait', 'table-exists', '--table-name', drill);
      // 3. The restored table holds the order as it was at T, and nothing written after T.
      const got = await aws('get-item', '--table-name', drill, '--key', JSON.stringify(key));
      expect(got.Item).toMatchObject(key);
      expect(await aws('get-item', '--table-name', drill, '--key', JSON.stringify(await orderKey(later.id)))).toEqual({});

      // 4. The damaged item copied back by its key: the stage answers it again, as it was.
      await aws('put-item', '--table-name', lane.names.table, '--item', JSON.stringify(got.Item));
      const after = await call('GET', `/v1/orders/${known.id}`, { token });
      expect(after.status).toBe(200);
      expect(after.body).toEqual(before.body);
      expect((await call('GET', `/v1/orders/${later.id}`, { token })).status).toBe(200);

      // 7. The drill's table deleted.
      await aws('delete-table', '--table-name', drill);
      await aws('wait', 'table-not-exists', '--table-name', drill);
    }, 180_000);

    it('refuses a restore time before the table existed or in the future, and a target that exists, as DynamoDB does', async () => {
      const restore = (target: string, at: string) => aws('restore-table-to-point-in-time', '--source-table-name', lane.names.table, '--target-table-name', target, '--restore-date-time', at);
      await expect(restore(`${lane.names.table}-early`, '2001-01-01T00:00:00Z')).rejects.toThrow(/InvalidRestoreTimeException/);
      await expect(restore(`${lane.names.table}-late`, new Date(Date.now() + 3_600_000).toISOString())).rejects.toThrow(/InvalidRestoreTimeException/);
      await expect(restore(lane.names.table, new Date().toISOString())).rejects.toThrow(/TableAlreadyExistsException/);
    }, 120_000);
  });

  it('fails a function whose template does not set a variable it reads, as Lambda would', async () => {
    const spec = lane.functions.specs.get(fn('Authorizer'))!;
    const { TABLE_NAME: _dropped, ...environment } = spec.environment;
    const bare = new Functions(new Map([[spec.name, { ...spec, environment }]]), { region: lane.region, servicesUrl: lane.servicesUrl, dynamoUrl: lane.dynamoUrl });
    const url = new URL(`${lane.apiUrl}/v1/orders`);
    const event = authorizerEvent(apiEvent({ method: 'GET', url, headers: { authorization: `Bearer ${adminToken}` }, body: Buffer.alloc(0), sourceIp: '127.0.0.1' }, 'GET /api/v1/orders', {}));
    try {
      await expect(bare.invoke(spec.name, event)).rejects.toThrow('Missing environment variable TABLE_NAME');
      expect(await lane.functions.invoke(spec.name, event)).toMatchObject({ isAuthorized: true });
    } finally {
      await bare.stop();
    }
  });
});
