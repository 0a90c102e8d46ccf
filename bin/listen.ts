/**
 * `npm run cli -- listen --forward-to http://localhost:4000/hooks [--events a,b]`: follows the
 * token's account's events feed (GET /v1/events, oldest first) and POSTs each new event to a
 * local URL, signed exactly as a real delivery but with a secret of this session, printing one
 * line per event with the local answer. Ctrl-C stops it; the next run resumes where it stopped
 * (the position is kept in a small state file).
 *
 * The feed shows an event when the fan-out has read it off the bus, so a newer event can appear
 * before an older one: each poll re-reads a window behind the newest event forwarded and skips
 * the ids it has already forwarded.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createDespachoClient } from '../clients/typescript';
import { deliveryTimeoutMs, newSigningSecret, signedHeaders, standardWebhooksSecret } from '#core/webhooks/delivery-rules';
import { webhookEventNames } from '#core/webhooks/events';
import { feedMaxLimit } from '#core/webhooks/feed';
import { postWebhook } from '#infra/webhook-http';

interface Writer {
  write(chunk: string): unknown;
}

export interface ListenOptions {
  baseUrl: string;
  token: string;
  forwardTo: string;
  events?: string[];
  /** The state file; by default one per API, token and event list under ~/.despacho. */
  stateFile?: string;
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
}

interface Envelope {
  id: string;
  type: string;
  created_at: string;
}

export class ListenUsageError extends Error {}

const positionKey = (p: { createdAt: string; eventId: string }) => `${p.createdAt}|${p.eventId}`;

export function defaultStateFile(baseUrl: string, token: string, events: string[] | undefined): string {
  const digest = createHash('sha256').update(`${baseUrl}\n${token}\n${(events ?? []).join(',')}`).digest('hex').slice(0, 16);
  return join(homedir(), '.despacho', `listen-${digest}.json`);
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

function checkOptions(o: ListenOptions): void {
  let url: URL;
  try {
    url = new URL(o.forwardTo);
  } catch {
    throw new ListenUsageError(`--forward-to must be a URL, e.g. http://localhost:4000/hooks; got '${o.forwardTo}'.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ListenUsageError('--forward-to must be an http or https URL.');
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
  const stateFile = o.stateFile ?? defaultStateFile(o.baseUrl, o.token, o.events);
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
    const message = (error as { message?: string } | undefined)?.message ?? response.statusText;
    const errors = (error as { errors?: Record<string, string[]> } | undefined)?.errors;
    const detail = `HTTP ${response.status}: ${message}${errors ? ' ' + JSON.stringify(errors) : ''}`;
    const retryAfter = Number(response.headers.get('retry-after'));
    const transient = response.status === 429 || response.status >= 500;
    throw new FeedError(detail, !transient, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : undefined);
  };

  const secret = newSigningSecret();
  try {
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
    out(`Ready. Forwarding ${o.events?.length ? o.events.join(', ') : 'every event'} of this token's account to ${o.forwardTo} (Ctrl-C stops; state ${stateFile}).`);
    out(`Signing secret of this session: ${secret}`);
    out(`  the same for Standard Webhooks libraries (webhook-signature): ${standardWebhooksSecret(secret)}`);

    while (!signal.aborted) {
      // Each poll looks back from the newest event seen (an instant: cursors are signed, none is made here),
      // then follows the feed's own cursors.
      const since = state.since ? new Date(Date.parse(state.since) - lookbackMs).toISOString() : undefined;
      let after: string | undefined;
      let more = true;
      try {
        while (more && !signal.aborted) {
          const res = await page({ order: 'asc', limit: String(feedMaxLimit), ...(after ? { after } : since ? { since } : {}) });
          for (const envelope of res.data as Envelope[]) {
            if (signal.aborted) break;
            if (state.seen[envelope.id]) continue;
            if (state.floor && positionKey({ createdAt: envelope.created_at, eventId: envelope.id }) <= positionKey(state.floor)) continue;
            state.deliveries += 1;
            const line = await forward(o.forwardTo, secret, envelope, state.deliveries);
            state.seen[envelope.id] = envelope.created_at;
            if (!state.since || envelope.created_at > state.since) state.since = envelope.created_at;
            writeState(stateFile, state);
            out(line);
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
    out('Stopped. Run the same command again to go on from here.');
    return 0;
  } catch (err) {
    if (err instanceof ListenUsageError) throw err;
    io.stderr.write(`Error: ${(err as Error).message}\n`);
    return 1;
  } finally {
    detach();
  }
}

/** Forgets the ids that left the look-back window. */
function prune(state: ListenState, lookbackMs: number): void {
  if (!state.since) return;
  const edge = new Date(Date.parse(state.since) - lookbackMs).toISOString();
  for (const [id, at] of Object.entries(state.seen)) if (at < edge) delete state.seen[id];
}

/** One POST as a real delivery makes it (spec 5.7 and Standard Webhooks headers), and its line. */
async function forward(url: string, secret: string, envelope: Envelope, delivery: number): Promise<string> {
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
  return `${new Date().toISOString()}  ${envelope.type.padEnd(30)} ${envelope.id}  ${answer} (${result.responseTimeMs} ms)`;
}
