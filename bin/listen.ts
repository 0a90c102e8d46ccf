/**
 * `npm run cli -- listen --forward-to http://localhost:4000/hooks [--events a,b]`: follows the
 * token's account's events feed (GET /v1/events, oldest first) and POSTs each new event to a
 * local URL, signed exactly as a real delivery with this machine's listen secret for the account
 * (made on the first run, kept in the config directory: the same on every run), printing one line
 * per event with the local answer. A forward the local URL fails is tried again on the delivery
 * schedule (spec 6.4), or on `--retry-delays`. Ctrl-C stops it; the next run resumes where it
 * stopped, pending retries included (the position is kept in a small state file).
 *
 * `events resend` and `trigger` send one event the same way: a past one from the feed, or a
 * sample of an event type.
 *
 * The feed shows an event when the fan-out has read it off the bus, so a newer event can appear
 * before an older one: each poll re-reads a window behind the newest event forwarded and skips
 * the ids it has already forwarded.
 */
import { createHash, randomUUID } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createDespachoClient } from '../clients/typescript';
import { deliveryTimeoutMs, newSigningSecret, retryDelaysMs, signedHeaders } from '#core/webhooks/delivery-rules';
import { webhookEventNames } from '#core/webhooks/events';
import { feedMaxLimit } from '#core/webhooks/feed';
import { postWebhook } from '#infra/webhook-http';

interface Writer {
  write(chunk: string): unknown;
}

/** Where the CLI keeps what outlives a run: the listen secrets and the state files. */
export interface MachineOptions {
  baseUrl: string;
  token: string;
  /** By default ~/.despacho (env DESPACHO_CONFIG_DIR in the CLI). */
  configDir?: string;
}

export interface ListenOptions extends MachineOptions {
  forwardTo: string;
  events?: string[];
  /** The state file; by default one per API, token and event list in the config directory. */
  stateFile?: string;
  /** Before each retry of a failed forward; by default the delivery schedule (1 min, 5 min, 30 min, 2 h, 24 h). */
  retryDelaysMs?: readonly number[];
  /** Between polls when the feed has nothing new. */
  intervalMs?: number;
  /** How far behind the newest forwarded event each poll looks again. */
  lookbackMs?: number;
}

export interface ListenIO {
  stdout: Writer;
  stderr: Writer;
  fetch?: typeof fetch;
  /** Stops the listener; by default Ctrl-C (SIGINT) or SIGTERM. */
  signal?: AbortSignal;
}

/** What survives a restart. */
interface ListenState {
  version: 1;
  /** Events at or before this position were there when the first run started: never forwarded. */
  floor: { createdAt: string; eventId: string } | null;
  /** The newest `created_at` forwarded (or the floor's). */
  since: string | null;
  /** Ids forwarded within the look-back window, by `created_at`. */
  seen: Record<string, string>;
  /** The last `X-Service-Delivery` number sent. */
  deliveries: number;
  /** Forwards the local URL failed, by event id, each with its next attempt. */
  retries?: Record<string, PendingRetry>;
}

interface PendingRetry {
  envelope: Envelope;
  /** Its `X-Service-Delivery` number, the same on every attempt. */
  delivery: number;
  failures: number;
  due: string;
}

interface Envelope {
  id: string;
  type: string;
  created_at: string;
  data?: unknown;
}

export class ListenUsageError extends Error {}

const positionKey = (p: { createdAt: string; eventId: string }) => `${p.createdAt}|${p.eventId}`;

export const defaultConfigDir = () => join(homedir(), '.despacho');

export function defaultStateFile(baseUrl: string, token: string, events: string[] | undefined, configDir = defaultConfigDir()): string {
  const digest = createHash('sha256').update(`${baseUrl}\n${token}\n${(events ?? []).join(',')}`).digest('hex').slice(0, 16);
  return join(configDir, `listen-${digest}.json`);
}

/**
 * This machine's listen secret for the token's account at this API: read from
 * `<config dir>/listen-secrets.json` (0600), made and stored there on the first call. Every
 * token of the account shares it, so a receiver set up once keeps working.
 */
export async function machineSecret(o: MachineOptions, fetcher?: typeof fetch, signal?: AbortSignal): Promise<string> {
  const api = createDespachoClient({ baseUrl: o.baseUrl, token: o.token, fetch: fetcher });
  const { data, error, response } = await api.GET('/api/v1/me', { signal });
  if (!response.ok || !data) throw new FeedError(`HTTP ${response.status}: ${(error as { message?: string } | undefined)?.message ?? response.statusText}`, true);
  const accountId = (data as { data: { account: { id: number } } }).data.account.id;
  const dir = o.configDir ?? defaultConfigDir();
  const file = join(dir, 'listen-secrets.json');
  const key = `${o.baseUrl.replace(/\/+$/, '')} account ${accountId}`;
  let secrets: Record<string, string> = {};
  try {
    secrets = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new ListenUsageError(`${file} is not a listen secrets file (${(err as Error).message}); remove it to start afresh.`);
  }
  const known = secrets[key];
  if (typeof known === 'string') return known;
  const secret = newSigningSecret();
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const partial = `${file}.${process.pid}.partial`;
  writeFileSync(partial, JSON.stringify({ ...secrets, [key]: secret }, null, 2), { mode: 0o600 });
  chmodSync(partial, 0o600);
  renameSync(partial, file);
  return secret;
}

function readState(file: string): ListenState | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const s = JSON.parse(text) as ListenState;
  if (s?.version !== 1 || typeof s.seen !== 'object' || s.seen === null) throw new ListenUsageError(`${file} is not a listen state file; remove it to start afresh.`);
  return s;
}

/** Written whole under a temporary name, then renamed: an interrupted write leaves the previous state. */
function writeState(file: string, state: ListenState): void {
  mkdirSync(dirname(file), { recursive: true });
  const partial = `${file}.${process.pid}.partial`;
  writeFileSync(partial, JSON.stringify(state), { mode: 0o600 });
  renameSync(partial, file);
}

function checkForwardTo(o: { forwardTo?: string }): void {
  if (!o.forwardTo) throw new ListenUsageError('needs --forward-to <url>.');
  let url: URL;
  try {
    url = new URL(o.forwardTo);
  } catch {
    throw new ListenUsageError(`--forward-to must be a URL, e.g. http://localhost:4000/hooks; got '${o.forwardTo}'.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ListenUsageError('--forward-to must be an http or https URL.');
}

function checkOptions(o: ListenOptions): void {
  checkForwardTo(o);
  const unknown = (o.events ?? []).filter((e) => !(webhookEventNames as readonly string[]).includes(e));
  if (unknown.length) throw new ListenUsageError(`Unknown event ${unknown.join(', ')}: see GET /api/webhook-subscriptions/available-events.`);
}

class FeedError extends Error {
  constructor(
    message: string,
    readonly fatal: boolean,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/** Runs until the signal; resolves with the exit status (0 when stopped, 1 when the service refuses the token or the query). */
export async function listen(o: ListenOptions, io: ListenIO): Promise<number> {
  checkOptions(o);
  const intervalMs = o.intervalMs ?? 2000;
  const lookbackMs = o.lookbackMs ?? 30_000;
  const delays = o.retryDelaysMs ?? retryDelaysMs;
  const stateFile = o.stateFile ?? defaultStateFile(o.baseUrl, o.token, o.events, o.configDir);
  const out = (line: string) => io.stdout.write(line + '\n');

  let signal = io.signal;
  let detach = () => {};
  if (!signal) {
    const controller = new AbortController();
    const stop = () => controller.abort();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    detach = () => (process.off('SIGINT', stop), process.off('SIGTERM', stop));
    signal = controller.signal;
  }

  const api = createDespachoClient({ baseUrl: o.baseUrl, token: o.token, fetch: io.fetch });
  const types = o.events?.length ? o.events.join(',') : undefined;
  const page = async (query: { order: 'asc' | 'desc'; limit: string; after?: string; since?: string }) => {
    const { data, error, response } = await api.GET('/api/v1/events', { params: { query: { ...query, types } }, signal });
    if (response.ok && data) return data;
    throw feedError(response, error);
  };

  try {
    const secret = await machineSecret(o, io.fetch, signal);
    let state = readState(stateFile);
    if (!state) {
      // A first run forwards what happens from now on: everything up to the newest event is the floor.
      const newest = (await page({ order: 'desc', limit: '1' })).data[0] as Envelope | undefined;
      state = {
        version: 1,
        floor: newest ? { createdAt: newest.created_at, eventId: newest.id } : null,
        since: newest?.created_at ?? null,
        seen: {},
        deliveries: 0,
      };
      writeState(stateFile, state);
    }
    const retries = (state.retries ??= {});
    out(`Ready. Forwarding ${o.events?.length ? o.events.join(', ') : 'every event'} of this token's account to ${o.forwardTo} (Ctrl-C stops; state ${stateFile}).`);
    out(`Webhook signing secret (this machine and account, the same on every run; --print-secret prints it alone): ${secret}`);

    /** One attempt; a failure waits in `retries` for its next one, until the schedule runs out. */
    const attempt = async (envelope: Envelope, delivery: number, failures: number) => {
      const result = await forward(o.forwardTo, secret, envelope, delivery);
      const delay = delays[failures];
      if (result.ok) delete retries[envelope.id];
      else if (delay === undefined) delete retries[envelope.id];
      else retries[envelope.id] = { envelope, delivery, failures: failures + 1, due: new Date(Date.now() + delay).toISOString() };
      const then = result.ok
        ? ''
        : delay === undefined
          ? `; gave up after ${failures + 1} attempts (send it again: events resend ${envelope.id} --forward-to ${o.forwardTo})`
          : `; attempt ${failures + 2} of ${delays.length + 1} in ${humanDelay(delay)}`;
      out(result.line + then);
    };

    while (!signal.aborted) {
      // Each poll looks back from the newest event seen (an instant: cursors are signed, none is made here),
      // then follows the feed's own cursors.
      const since = state.since ? new Date(Date.parse(state.since) - lookbackMs).toISOString() : undefined;
      let after: string | undefined;
      let more = true;
      try {
        for (const r of Object.values(retries)) {
          if (signal.aborted) break;
          if (Date.parse(r.due) > Date.now()) continue;
          await attempt(r.envelope, r.delivery, r.failures);
          writeState(stateFile, state);
        }
        while (more && !signal.aborted) {
          const res = await page({ order: 'asc', limit: String(feedMaxLimit), ...(after ? { after } : since ? { since } : {}) });
          for (const envelope of res.data as Envelope[]) {
            if (signal.aborted) break;
            if (state.seen[envelope.id]) continue;
            if (state.floor && positionKey({ createdAt: envelope.created_at, eventId: envelope.id }) <= positionKey(state.floor)) continue;
            state.deliveries += 1;
            await attempt(envelope, state.deliveries, 0);
            state.seen[envelope.id] = envelope.created_at;
            if (!state.since || envelope.created_at > state.since) state.since = envelope.created_at;
            writeState(stateFile, state);
          }
          more = res.meta.has_more;
          after = res.meta.next_cursor ?? after;
        }
        prune(state, lookbackMs);
        await sleep(intervalMs, undefined, { signal }).catch(() => undefined);
      } catch (err) {
        if (signal.aborted) break;
        if (err instanceof FeedError && err.fatal) throw err;
        io.stderr.write(`Feed not read (${err instanceof FeedError ? err.message : ((err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message)}); trying again.\n`);
        await sleep(err instanceof FeedError && err.retryAfterMs ? err.retryAfterMs : intervalMs * 2, undefined, { signal }).catch(() => undefined);
      }
    }
    writeState(stateFile, state);
    const pending = Object.keys(retries).length;
    out(`Stopped.${pending ? ` ${pending} failed forward${pending === 1 ? '' : 's'} still to retry.` : ''} Run the same command again to go on from here.`);
    return 0;
  } catch (err) {
    if (err instanceof ListenUsageError) throw err;
    io.stderr.write(`Error: ${(err as Error).message}\n`);
    return 1;
  } finally {
    detach();
  }
}

function feedError(response: Response, error: unknown): FeedError {
  const message = (error as { message?: string } | undefined)?.message ?? response.statusText;
  const errors = (error as { errors?: Record<string, string[]> } | undefined)?.errors;
  const detail = `HTTP ${response.status}: ${message}${errors ? ' ' + JSON.stringify(errors) : ''}`;
  const retryAfter = Number(response.headers.get('retry-after'));
  const transient = response.status === 429 || response.status >= 500;
  return new FeedError(detail, !transient, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : undefined);
}

function humanDelay(ms: number): string {
  if (ms < 60_000) return `${Math.round(ms / 100) / 10} s`;
  if (ms < 3600_000) return `${Math.round(ms / 60_000)} min`;
  return `${Math.round(ms / 3600_000)} h`;
}

/** `--print-secret`: the machine's listen secret for the account, alone on its line. */
export async function printSecret(o: MachineOptions, io: ListenIO): Promise<number> {
  try {
    io.stdout.write((await machineSecret(o, io.fetch, io.signal)) + '\n');
    return 0;
  } catch (err) {
    if (err instanceof ListenUsageError) throw err;
    io.stderr.write(`Error: ${(err as Error).message}\n`);
    return 1;
  }
}

/**
 * `events resend <id>`: the event as the feed holds it (the account's last 30 days), sent once more
 * to `--forward-to`, signed with the machine's listen secret.
 */
export async function resend(o: MachineOptions & { forwardTo: string; eventId: string }, io: ListenIO): Promise<number> {
  checkForwardTo(o);
  if (!/^evt_[A-Za-z0-9_-]{1,100}$/.test(o.eventId)) throw new ListenUsageError(`The event id looks like evt_…; got '${o.eventId}'.`);
  return sendOne(o, io, async (api) => {
    let after: string | undefined;
    for (;;) {
      const { data, error, response } = await api.GET('/api/v1/events', { params: { query: { order: 'desc', limit: String(feedMaxLimit), ...(after ? { after } : {}) } }, signal: io.signal });
      if (!response.ok || !data) throw feedError(response, error);
      const found = (data.data as Envelope[]).find((e) => e.id === o.eventId);
      if (found) return found;
      if (!data.meta.has_more || !data.meta.next_cursor) throw new FeedError(`No event ${o.eventId} in this account's feed (it keeps 30 days).`, true);
      after = data.meta.next_cursor;
    }
  });
}

/**
 * `trigger <event type>`: a sample of the event, as a fresh envelope (a new `evt_sample_…` id,
 * now), sent to `--forward-to` signed with the machine's listen secret. The sample is the
 * event's example in the service's openapi.json; for an event without one, the newest of that
 * type in the account's feed, with a new id and time.
 */
export async function trigger(o: MachineOptions & { forwardTo: string; eventType: string }, io: ListenIO): Promise<number> {
  checkForwardTo(o);
  if (!(webhookEventNames as readonly string[]).includes(o.eventType)) throw new ListenUsageError(`Unknown event ${o.eventType}: one of ${webhookEventNames.join(', ')}.`);
  return sendOne(o, io, async (api) => {
    const fresh = (data: unknown): Envelope => ({ id: `evt_sample_${randomUUID().replace(/-/g, '')}`, type: o.eventType, created_at: new Date().toISOString(), data });
    const example = await documentedExample(o.baseUrl, o.eventType, io);
    if (example !== undefined) return fresh(example);
    const { data, error, response } = await api.GET('/api/v1/events', { params: { query: { order: 'desc', limit: '1', types: o.eventType } }, signal: io.signal });
    if (!response.ok || !data) throw feedError(response, error);
    const newest = (data.data as Envelope[])[0];
    if (!newest) throw new FeedError(`No sample of ${o.eventType}: openapi.json shows no example and this account's feed has none of it yet.`, true);
    return fresh(newest.data);
  });
}

/** The `data` of the event's example in openapi.json's `webhooks`, if it shows one. */
async function documentedExample(baseUrl: string, eventType: string, io: ListenIO): Promise<unknown> {
  const res = await (io.fetch ?? fetch)(`${baseUrl.replace(/\/+$/, '')}/openapi.json`, { signal: io.signal });
  if (!res.ok) return undefined;
  const doc = (await res.json()) as { webhooks?: Record<string, { post?: { requestBody?: { content?: Record<string, { example?: { data?: unknown } }> } } }> };
  return doc.webhooks?.[eventType]?.post?.requestBody?.content?.['application/json']?.example?.data;
}

async function sendOne(o: MachineOptions & { forwardTo: string }, io: ListenIO, find: (api: ReturnType<typeof createDespachoClient>) => Promise<Envelope>): Promise<number> {
  try {
    const api = createDespachoClient({ baseUrl: o.baseUrl, token: o.token, fetch: io.fetch });
    const secret = await machineSecret(o, io.fetch, io.signal);
    const envelope = await find(api);
    const result = await forward(o.forwardTo, secret, envelope, 0);
    io.stdout.write(result.line + '\n');
    return result.ok ? 0 : 1;
  } catch (err) {
    if (err instanceof ListenUsageError) throw err;
    io.stderr.write(`Error: ${(err as Error).message}\n`);
    return 1;
  }
}

/** Forgets the ids that left the look-back window. */
function prune(state: ListenState, lookbackMs: number): void {
  if (!state.since) return;
  const edge = new Date(Date.parse(state.since) - lookbackMs).toISOString();
  for (const [id, at] of Object.entries(state.seen)) if (at < edge) delete state.seen[id];
}

/** One POST as a real delivery makes it (spec 5.7 and Standard Webhooks headers), and its line. */
async function forward(url: string, secret: string, envelope: Envelope, delivery: number): Promise<{ ok: boolean; line: string }> {
  const body = JSON.stringify(envelope);
  const timestamp = Math.floor(Date.now() / 1000);
  const result = await postWebhook({
    url,
    body,
    headers: { ...signedHeaders(secret, timestamp, body, { id: envelope.id }), 'X-Service-Event': envelope.type, 'X-Service-Delivery': String(delivery) },
    timeoutMs: deliveryTimeoutMs,
    reach: 'any',
  });
  const answer = result.statusCode === null ? `-> ${result.error}` : `-> ${result.statusCode}`;
  return { ok: result.ok, line: `${new Date().toISOString()}  ${envelope.type.padEnd(30)} ${envelope.id}  ${answer} (${result.responseTimeMs} ms)` };
}
