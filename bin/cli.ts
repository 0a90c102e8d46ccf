/**
 * Operator CLI: `npm run cli -- <command> [options]`. It only speaks the service's HTTP admin API,
 * so it works the same against the local twin and a deployed stage. A command is one entry of
 * `commands`: its words, options, the request it sends and how it prints the answer.
 */
import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { roles, scopes } from '#catalog/types';
import { createDespachoClient, requestPath, type DespachoClient } from '../clients/typescript';

export const defaultUrl = 'http://localhost:3000/api';

interface Writer {
  write(chunk: string): unknown;
}

export interface CliIO {
  fetch: typeof fetch;
  stdout: Writer;
  stderr: Writer;
  env: Record<string, string | undefined>;
  /** Stops a long-running command (listen); by default Ctrl-C. */
  signal?: AbortSignal;
}

interface OptionSpec {
  type: 'string' | 'boolean';
  /** Shown in usage: `--name <name>`. */
  value?: string;
  description: string;
  required?: boolean;
  short?: string;
}

type Values = Record<string, string | boolean | undefined>;

interface Input {
  /** Positional arguments by the names the command declares. */
  args: Record<string, string>;
  options: Values;
}

/**
 * One call of the API through the typed client (clients/typescript): the path, its parameters and
 * its body are checked against openapi.json when this file compiles. It answers the parsed body
 * (`data` on success, `error` on failure: JSON, or the text when it is not) and the response.
 */
type Call = (api: DespachoClient, init: { signal: AbortSignal }) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

interface ApiAnswer {
  success?: boolean;
  message?: string;
  data?: any;
  [extra: string]: unknown;
}

export interface Command {
  /** The words that select it: `tokens create`. */
  name: string;
  summary: string;
  /** Positional arguments, in order: `['id']` reads `tokens revoke <id>`. */
  args?: string[];
  options?: Record<string, OptionSpec>;
  /** False for the few calls that need no token. */
  auth?: boolean;
  /** Builds the call; throws UsageError when the input cannot make one. */
  request(input: Input): Call;
  /** Prints a successful answer for people (--json prints the raw body instead). */
  print(answer: ApiAnswer, out: Printer): void;
  /** For a command made of several calls: the call that follows a successful answer, none when done. */
  next?(answer: ApiAnswer): Call | undefined;
  /** For the few commands that act on a stage directly instead of through the API. */
  direct?(input: Input, io: DirectIO): Promise<number>;
}

interface DirectIO {
  stdout: Writer;
  stderr: Writer;
  env: Record<string, string | undefined>;
  fetch: typeof fetch;
  signal?: AbortSignal;
  /** The API base URL and the token, as every command takes them. */
  base: string;
  token?: string;
}

export class UsageError extends Error {}

const globalOptions: Record<string, OptionSpec> = {
  url: { type: 'string', value: '<url>', description: `API base URL (env DESPACHO_URL, default ${defaultUrl})` },
  token: { type: 'string', value: '<token>', description: 'Bearer token (env DESPACHO_TOKEN, else ADMIN_TOKEN; prefer the env, it stays out of shell history)' },
  json: { type: 'boolean', description: 'Print the raw JSON response' },
  help: { type: 'boolean', short: 'h', description: 'Show help' },
};

/** A path segment or query value that must be a positive integer id. */
function id(value: string, what: string): string {
  if (!/^[1-9]\d{0,14}$/.test(value)) throw new UsageError(`${what} must be a positive integer, got '${value}'.`);
  return value;
}

function str(options: Values, name: string): string | undefined {
  const v = options[name];
  return typeof v === 'string' ? v : undefined;
}

/** `--scopes`: left out, none sent (the role's scopes); `none`, an empty list; else the comma-separated names. */
function scopeList(value: string | undefined): never {
  if (value === undefined) return undefined as never;
  if (value.trim() === 'none') return [] as never;
  return value.split(',').map((s) => s.trim()).filter(Boolean) as never;
}

const accountColumns: Column[] = [
  ['ID', (a) => a.id],
  ['NAME', (a) => a.name],
  ['KIND', (a) => a.kind],
  ['CREATED', (a) => a.created_at],
];

const tokenColumns: Column[] = [
  ['ID', (t) => t.id],
  ['ACCOUNT', (t) => t.account_id],
  ['NAME', (t) => t.name],
  ['ROLE', (t) => t.role],
  ['SCOPES', (t) => (t.scopes?.length ? t.scopes.join(',') : '-')],
  ['ACTIVE', (t) => (t.active ? 'yes' : 'no')],
  ['EXPIRES', (t) => t.expires_at ?? '-'],
  ['LAST USED', (t) => t.last_used_at ?? '-'],
  ['CREATED', (t) => t.created_at],
];

export const commands: Command[] = [
  {
    name: 'accounts create',
    summary: 'Create a partner or broker account',
    options: {
      name: { type: 'string', value: '<name>', description: 'Account name', required: true },
      kind: { type: 'string', value: 'partner|broker', description: 'Account kind', required: true },
    },
    request: ({ options }) => (api, init) => api.POST('/api/v1/admin/accounts', { ...init, body: { name: String(options.name), kind: options.kind as 'partner' | 'broker' } }),
    print: ({ message, data }, out) => {
      out.line(message ?? 'Account created.');
      out.fields(data, accountColumns);
    },
  },
  {
    name: 'accounts list',
    summary: 'List accounts',
    request: () => (api, init) => api.GET('/api/v1/admin/accounts', init),
    print: ({ data }, out) => out.table(data, accountColumns, 'account'),
  },
  {
    name: 'accounts signing-secret',
    summary: "Make or rotate an account's manifest signing secret (shown once)",
    args: ['id'],
    request: ({ args }) => {
      const account = id(args.id, 'The account id');
      return (api, init) => api.POST('/api/v1/admin/accounts/{id}/signing-secret', { ...init, params: { path: { id: account } } });
    },
    print: ({ message, data }, out) => {
      out.line(message ?? 'Signing secret created.');
      out.line('');
      out.line('Secret (shown once: store it now, it cannot be read again):');
      out.line('');
      out.line(`  ${data.secret}`);
      out.line('');
    },
  },
  {
    name: 'accounts tariff-consent',
    summary: "Record an account's consent (yes) or its withdrawal (no) that the broker's tariff decisions on its products be exported as labeled items",
    args: ['id'],
    options: {
      share: { type: 'string', value: 'yes|no', description: 'Whether its decisions may be exported', required: true },
      reference: { type: 'string', value: '<ref>', description: "Where the consent is written (the agreement's reference)" },
    },
    request: ({ args, options }) => {
      const account = id(args.id, 'The account id');
      const share = str(options, 'share');
      if (share !== 'yes' && share !== 'no') throw new UsageError('--share must be yes or no.');
      return (api, init) => api.PUT('/api/v1/admin/accounts/{id}/tariff-consent', { ...init, params: { path: { id: account } }, body: { share_decisions: share === 'yes', ...(str(options, 'reference') ? { reference: str(options, 'reference') } : {}) } });
    },
    print: ({ message, data }, out) => {
      out.line(message ?? 'Consent recorded.');
      out.line(`account ${data.id} (${data.name}): ${data.shares_tariff_decisions ? 'shares' : 'does not share'} its tariff decisions, recorded ${data.tariff_consent_at}`);
    },
  },
  {
    name: 'tariff decisions',
    summary: "A consenting account's broker decisions as labeled items, tab-separated in the labeled-data format (docs/tariff/data.md): redirect to a file",
    args: ['accountId'],
    request: ({ args }) => decisionsFrom(id(args.accountId, 'The account id'), undefined),
    next: ({ meta }) => {
      const m = meta as { account_id?: number; next_cursor?: string | null } | undefined;
      return typeof m?.next_cursor === 'string' ? decisionsFrom(String(m.account_id), m.next_cursor) : undefined;
    },
    print: ({ data, meta }, out) => {
      if (!(meta as { cursor?: string | null } | undefined)?.cursor) out.line(labeledColumns.join('\t'));
      for (const d of data ?? []) out.line(labeledColumns.map((c) => (c === 'lang' ? '' : String(d[c] ?? '').replace(/[\t\r\n]+/g, ' '))).join('\t'));
    },
  },
  ...(['close', 'reopen'] as const).map(
    (action): Command => ({
      name: `batches ${action}`,
      summary: action === 'close' ? 'Close a manifest batch: later writes to it get 423 (broker or admin token)' : 'Reopen a closed manifest batch (broker or admin token)',
      args: ['batchId'],
      request: ({ args }) => (api, init) => api.POST(`/api/v1/couriers/batches/{batchId}/${action}`, { ...init, params: { path: { batchId: args.batchId } } }),
      print: ({ message, data }, out) => {
        out.line(message ?? 'Done.');
        out.line(`batch ${data.batch_id} (manifest ${data.manifest_number}): ${data.closed ? `closed at ${data.closed_at} by ${data.closed_by}` : 'open'}`);
      },
    }),
  ),
  migration('channel-codes', 'Rewrite data stored under a former channel code (mercadolibre) to the current one (meli)', ({ data }, out) => {
    const counts = ['accounts', 'orders', 'index_rows', 'channel_keys', 'connections', 'credentials', 'syncs'].map((k) => `${k.replace('_', ' ')} ${data[k]}`).join(', ');
    out.line(`${data.done ? 'Done' : 'Going on'}: ${counts}.`);
    for (const c of data.conflicts ?? []) out.line(`  left as it was: ${c}`);
  }),
  migration('signing-secrets', 'Seal the webhook and manifest signing secrets still stored in clear (written before they were encrypted)', ({ data }, out) =>
    out.line(`${data.done ? 'Done' : 'Going on'}: accounts ${data.accounts}, manifest secrets sealed ${data.manifest_secrets}, webhook secrets sealed ${data.webhook_secrets}.`),
  ),
  migration('token-scopes', 'Write out the scopes of the tokens issued before every route named one (what each could do then)', ({ data }, out) =>
    out.line(`${data.done ? 'Done' : 'Going on'}: tokens ${data.tokens}, scopes written out ${data.written}.`),
  ),
  {
    name: 'tariff import',
    summary: 'Replace the tariff table from a CSV file (ncm,description,duty_rate[,description_en][,keywords]); bad lines are listed and nothing is stored',
    args: ['file'],
    request: ({ args }) => {
      const csv = readTextFile(args.file);
      return (api, init) => api.PUT('/api/v1/admin/tariff', { ...init, body: csv, bodySerializer: (text: string) => text, headers: { 'Content-Type': 'text/csv' } });
    },
    print: ({ message, data }, out) => {
      out.line(message ?? 'Tariff table imported.');
      out.fields(data, tariffColumns.concat([['REPLACED', (t) => t.replaced_version]]));
    },
  },
  {
    name: 'tariff show',
    summary: 'Show the tariff table in force: built-in or imported, rows, version',
    request: () => (api, init) => api.GET('/api/v1/admin/tariff', init),
    print: ({ data }, out) => out.fields(data, tariffColumns.concat([['CLASSIFIER', (t) => t.classifier]])),
  },
  {
    name: 'tokens create',
    summary: 'Issue a token for an account (its value is shown once)',
    options: {
      'account-id': { type: 'string', value: '<id>', description: 'Account the token acts for', required: true },
      name: { type: 'string', value: '<name>', description: 'Token name', required: true },
      email: { type: 'string', value: '<email>', description: "Contact of the token's holder (shown as uploader or approver)" },
      role: { type: 'string', value: roles.join('|'), description: 'Token role', required: true },
      scopes: { type: 'string', value: scopes.join(','), description: "Comma-separated scopes, or none (default: every scope the role may hold)" },
      'expires-at': { type: 'string', value: '<ISO 8601>', description: 'When the token stops working, e.g. 2027-06-30T18:00:00Z (at most 2 years ahead; default never)' },
    },
    request: ({ options }) => {
      const body = {
        account_id: Number(id(str(options, 'account-id')!, '--account-id')),
        name: String(options.name),
        email: str(options, 'email'),
        // The service names a bad role or scope (422); the CLI does not check them twice.
        role: options.role as never,
        scopes: scopeList(str(options, 'scopes')),
        // The service checks it (ISO 8601, future, at most 2 years: 422 on expires_at).
        expires_at: str(options, 'expires-at'),
      };
      return (api, init) => api.POST('/api/v1/admin/tokens', { ...init, body });
    },
    print: ({ message, data }, out) => {
      const { token, ...record } = data;
      out.line(message ?? 'Token created.');
      out.fields(record, tokenColumns.filter(([h]) => h !== 'LAST USED' && h !== 'ACTIVE'));
      out.line('');
      out.line('Token (shown once: store it now, it cannot be read again):');
      out.line('');
      out.line(`  ${token}`);
      out.line('');
    },
  },
  {
    name: 'tokens list',
    summary: 'List tokens, optionally of one account (never their values)',
    options: {
      'account-id': { type: 'string', value: '<id>', description: 'Only the tokens of this account' },
    },
    request: ({ options }) => {
      const accountId = str(options, 'account-id');
      const query = accountId ? { account_id: id(accountId, '--account-id') } : {};
      return (api, init) => api.GET('/api/v1/admin/tokens', { ...init, params: { query } });
    },
    print: ({ data }, out) => out.table(data, tokenColumns, 'token'),
  },
  {
    name: 'tokens revoke',
    summary: 'Revoke a token',
    args: ['id'],
    request: ({ args }) => {
      const token = id(args.id, 'The token id');
      return (api, init) => api.DELETE('/api/v1/admin/tokens/{id}', { ...init, params: { path: { id: token } } });
    },
    print: ({ message, data }, out) => {
      out.line(message ?? 'Token revoked.');
      out.fields(data, tokenColumns.concat([['REVOKED', (t) => t.revoked_at]]));
    },
  },
  {
    name: 'bootstrap admin-token',
    summary: "Write the first admin token straight into a stage's table (AWS credentials; the API needs a token to make one)",
    auth: false,
    options: {
      table: { type: 'string', value: '<table>', description: 'The stage table name (stack output TableName)', required: true },
    },
    request: () => {
      throw new UsageError('bootstrap runs directly against the table');
    },
    print: () => undefined,
    direct: async ({ options }, { stdout, env }) => {
      const { bootstrapAdminToken } = await import('./bootstrap');
      const { token, created } = await bootstrapAdminToken(String(options.table), env.ADMIN_TOKEN);
      if (!created) stdout.write('That ADMIN_TOKEN is already a token of this stage; nothing changed.\n');
      else if (env.ADMIN_TOKEN) stdout.write('The value of ADMIN_TOKEN is now an admin token of this stage.\n');
      else stdout.write(`Admin token created (shown once: store it now):\n\n  ${token}\n`);
      return 0;
    },
  },
  {
    name: 'demo',
    summary: 'Seed a demo partner and broker: transport documents in every state, orders across channels and statuses (needs an admin token)',
    request: () => {
      throw new UsageError('demo runs several calls');
    },
    print: () => undefined,
    direct: async ({ options }, { stdout, env }) => {
      const { seedDemo } = await import('./demo');
      const base = (str(options, 'url') ?? env.DESPACHO_URL ?? defaultUrl).replace(/\/+$/, '');
      const token = str(options, 'token') ?? env.DESPACHO_TOKEN ?? env.ADMIN_TOKEN!;
      const api = createDespachoClient({ baseUrl: base });
      // The demo's calls are many and built from its data: sent through the client by method and path.
      const call = async (method: string, path: string, bearer: string, body?: unknown) => {
        const { data, error, response } = await requestPath(api, method, path, { body, headers: { Authorization: `Bearer ${bearer}` } });
        if (!response.ok) {
          const { message = '', errors } = (typeof error === 'object' && error ? error : {}) as { message?: string; errors?: unknown };
          throw new Error(`${method} ${path}: HTTP ${response.status} ${message}${errors ? ' ' + JSON.stringify(errors) : ''}`);
        }
        return data;
      };
      for (const line of await seedDemo(call, token, base)) stdout.write(line + '\n');
      return 0;
    },
  },
  {
    name: 'listen',
    summary: "Forward the token's account's new events to a local URL, signed as real deliveries with this machine's listen secret (the same on every run); a failed forward is retried on the delivery schedule (Ctrl-C stops; a rerun goes on)",
    options: {
      'forward-to': { type: 'string', value: '<url>', description: 'Where to POST each event, e.g. http://localhost:4000/hooks (required unless --print-secret)' },
      events: { type: 'string', value: '<a,b>', description: 'Only these events (comma-separated; default every event)' },
      state: { type: 'string', value: '<file>', description: 'Where to keep the position (default ~/.despacho/listen-<digest>.json, one per URL, token and events)' },
      interval: { type: 'string', value: '<ms>', description: 'Between polls of the feed (default 2000)' },
      'retry-delays': { type: 'string', value: '<ms,ms,...>', description: 'Waits before each retry of a failed forward (default the delivery schedule: 1 min, 5 min, 30 min, 2 h, 24 h)' },
      'print-secret': { type: 'boolean', description: "Print this machine's listen secret for the account, alone, and exit" },
    },
    request: () => {
      throw new UsageError('listen follows the feed');
    },
    print: () => undefined,
    direct: async ({ options }, io) => {
      const { listen, printSecret } = await import('./listen');
      const machine = { baseUrl: io.base, token: io.token!, configDir: io.env.DESPACHO_CONFIG_DIR || undefined };
      const listenIO = { stdout: io.stdout, stderr: io.stderr, fetch: io.fetch, signal: io.signal };
      if (options['print-secret'] === true) return listenUsage(() => printSecret(machine, listenIO));
      const interval = str(options, 'interval');
      if (interval !== undefined && !/^\d{2,7}$/.test(interval)) throw new UsageError('--interval must be a number of milliseconds, 10 or more.');
      const delays = str(options, 'retry-delays');
      if (delays !== undefined && !/^\d{1,9}(,\d{1,9}){0,9}$/.test(delays)) throw new UsageError('--retry-delays must be up to 10 comma-separated numbers of milliseconds, e.g. 1000,5000,30000.');
      const events = str(options, 'events')?.split(',').map((e) => e.trim()).filter(Boolean);
      return listenUsage(() =>
        listen(
          {
            ...machine,
            forwardTo: str(options, 'forward-to') ?? '',
            events,
            stateFile: str(options, 'state'),
            intervalMs: interval ? Number(interval) : undefined,
            retryDelaysMs: delays?.split(',').map(Number),
          },
          listenIO,
        ),
      );
    },
  },
  {
    name: 'events resend',
    summary: "Send one of the account's past events (its last 30 days) again to a local URL, signed as listen signs",
    args: ['id'],
    options: {
      'forward-to': { type: 'string', value: '<url>', description: 'Where to POST it, e.g. http://localhost:4000/hooks', required: true },
    },
    request: () => {
      throw new UsageError('resend reads the feed');
    },
    print: () => undefined,
    direct: async ({ args, options }, io) => {
      const { resend } = await import('./listen');
      return listenUsage(() =>
        resend(
          { baseUrl: io.base, token: io.token!, configDir: io.env.DESPACHO_CONFIG_DIR || undefined, forwardTo: String(options['forward-to']), eventId: args.id },
          { stdout: io.stdout, stderr: io.stderr, fetch: io.fetch, signal: io.signal },
        ),
      );
    },
  },
  {
    name: 'trigger',
    summary: 'Send a sample of an event type to a local URL, signed as listen signs (the example in openapi.json, else the newest of its kind in the feed)',
    args: ['event'],
    options: {
      'forward-to': { type: 'string', value: '<url>', description: 'Where to POST it, e.g. http://localhost:4000/hooks', required: true },
    },
    request: () => {
      throw new UsageError('trigger sends a sample');
    },
    print: () => undefined,
    direct: async ({ args, options }, io) => {
      const { trigger } = await import('./listen');
      return listenUsage(() =>
        trigger(
          { baseUrl: io.base, token: io.token!, configDir: io.env.DESPACHO_CONFIG_DIR || undefined, forwardTo: String(options['forward-to']), eventType: args.event },
          { stdout: io.stdout, stderr: io.stderr, fetch: io.fetch, signal: io.signal },
        ),
      );
    },
  },
  {
    name: 'whoami',
    summary: "Show the calling token's account, role and scopes",
    request: () => (api, init) => api.GET('/api/v1/me', init),
    print: ({ data }, out) => {
      out.fields(
        { ...data.account, token_id: data.token?.id, role: data.token?.role, scopes: data.token?.scopes },
        [
          ['ACCOUNT', (d) => `${d.id} ${d.name} (${d.kind})`],
          ['TOKEN', (d) => d.token_id],
          ['ROLE', (d) => d.role],
          ['SCOPES', (d) => (d.scopes?.length ? d.scopes.join(',') : '-')],
        ],
      );
    },
  },
];

type Column = [header: string, cell: (row: any) => unknown];

/** Runs a listen-family command; its usage errors are the CLI's (exit 2). */
async function listenUsage(run: () => Promise<number>): Promise<number> {
  const { ListenUsageError } = await import('./listen');
  try {
    return await run();
  } catch (err) {
    if (err instanceof ListenUsageError) throw new UsageError(err.message.startsWith('needs ') ? `'listen' ${err.message}` : err.message);
    throw err;
  }
}

const tariffColumns: Column[] = [
  ['SOURCE', (t) => t.source],
  ['ROWS', (t) => t.rows],
  ['VERSION', (t) => t.version],
  ['IMPORTED', (t) => t.imported_at],
];

/** The labeled-data format's columns (docs/tariff/data.md), then what a decision adds. */
const labeledColumns = ['source', 'doc_id', 'date', 'lang', 'hs6', 'description', 'ncm_code', 'declared_code', 'product_link'];

function decisionsFrom(accountId: string, cursor: string | undefined): Call {
  return (api, init) => api.GET('/api/v1/admin/accounts/{id}/tariff-decisions', { ...init, params: { path: { id: accountId }, query: { per_page: '500', ...(cursor ? { cursor } : {}) } } });
}

/**
 * `migrate <what>`: an operator migration (POST /api/v1/admin/migrations/<what>), page after page
 * from the cursor each answers until it says done; `line` prints a page's counts, and the cursor
 * is printed after them while it goes on (so an interrupted run can go on with --cursor).
 */
function migration(what: 'channel-codes' | 'signing-secrets' | 'token-scopes', summary: string, line: (answer: ApiAnswer, out: Printer) => void): Command {
  const from = (cursor: string | undefined): Call => (api, init) => api.POST(`/api/v1/admin/migrations/${what}`, { ...init, body: { cursor } });
  return {
    name: `migrate ${what}`,
    summary: `${summary}; safe to repeat and to run while the service runs`,
    options: {
      cursor: { type: 'string', value: '<cursor>', description: 'Go on from where an interrupted run stopped (the cursor it printed)' },
    },
    request: ({ options }) => from(str(options, 'cursor')),
    next: ({ data }) => (data?.done === false && typeof data.cursor === 'string' ? from(data.cursor) : undefined),
    print: (answer, out) => {
      line(answer, out);
      if (!answer.data.done) out.line(`  cursor: ${answer.data.cursor}`);
    },
  };
}

/**
 * The API base URL, refused when a token would travel in clear to another machine: https, or http
 * to this machine only (localhost, 127.0.0.0/8, ::1), as the twin serves.
 */
export function baseUrlOf(base: string): string {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new UsageError(`The API URL must be a URL, e.g. https://api.example.com/api; got '${base}'.`);
  }
  const loopback = url.hostname === 'localhost' || url.hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(url.hostname);
  if (url.protocol === 'https:' || (url.protocol === 'http:' && loopback)) return base;
  throw new UsageError(`The API URL ${url.origin} is not https: the token would travel in clear. Use https, or http only to this machine (localhost).`);
}

/** A file's text for the request; a missing or unreadable file is a usage error. */
function readTextFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(`Cannot read '${path}': ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}.`);
  }
}

interface Printer {
  line(text: string): void;
  /** One row per record, columns aligned, then a count. */
  table(rows: unknown[], columns: Column[], noun: string): void;
  /** One record as `header: value` lines. */
  fields(record: unknown, columns: Column[]): void;
}

function printer(w: Writer): Printer {
  const line = (text: string) => w.write(`${text}\n`);
  const cell = (v: unknown) => (v === undefined || v === null || v === '' ? '-' : String(v));
  return {
    line,
    table(rows, columns, noun) {
      const grid = [columns.map(([h]) => h), ...rows.map((r) => columns.map(([, f]) => cell(f(r))))];
      const widths = columns.map((_, c) => Math.max(...grid.map((row) => row[c].length)));
      for (const row of grid) line(row.map((v, c) => v.padEnd(widths[c])).join('  ').trimEnd());
      line(`${rows.length} ${noun}${rows.length === 1 ? '' : 's'}`);
    },
    fields(record, columns) {
      const width = Math.max(...columns.map(([h]) => h.length)) + 1;
      for (const [h, f] of columns) line(`${`${h.toLowerCase()}:`.padEnd(width)} ${cell(f(record))}`);
    },
  };
}

/** The whole usage text, or one command's. */
function usage(only?: Command): string {
  const optionLine = (name: string, o: OptionSpec) =>
    `    ${[o.short ? `-${o.short}, ` : '', `--${name}`, o.value ? ` ${o.value}` : ''].join('').padEnd(34)} ${o.description}${o.required ? ' (required)' : ''}`;
  const lines = ['Usage: npm run cli -- <command> [options]', '', only ? 'Command:' : 'Commands:'];
  for (const c of only ? [only] : commands) {
    lines.push(`  ${[c.name, ...(c.args ?? []).map((a) => `<${a}>`)].join(' ').padEnd(36)} ${c.summary}`);
    for (const [name, o] of Object.entries(c.options ?? {})) lines.push(optionLine(name, o));
  }
  if (!only) lines.push('  help'.padEnd(38) + ' Show this help');
  lines.push('', 'Global options:');
  for (const [name, o] of Object.entries(globalOptions)) lines.push(optionLine(name, o));
  lines.push('', 'Exit status: 0 done, 1 the service refused or could not be reached, 2 usage error.');
  return lines.join('\n') + '\n';
}

type ParseOptions = Record<string, { type: 'string' | 'boolean'; short?: string }>;

function parseSpecs(specs: Record<string, OptionSpec>): ParseOptions {
  return Object.fromEntries(Object.entries(specs).map(([k, o]) => [k, o.short ? { type: o.type, short: o.short } : { type: o.type }]));
}

/** Every option any command knows, so the first, lenient pass reads option values as values, not words. */
function allOptions(): ParseOptions {
  return parseSpecs(Object.assign({}, globalOptions, ...commands.map((c) => c.options ?? {})));
}

/** The command whose words start the positionals; the longest match wins. */
function findCommand(words: string[]): Command | undefined {
  return commands
    .filter((c) => c.name.split(' ').every((w, i) => words[i] === w))
    .sort((a, b) => b.name.length - a.name.length)[0];
}

function unknownCommand(words: string[]): UsageError {
  const group = commands.filter((c) => c.name.split(' ')[0] === words[0]);
  if (group.length && words.length === 1) {
    return new UsageError(`'${words[0]}' needs a subcommand: ${group.map((c) => c.name.split(' ').slice(1).join(' ')).join(', ')}.`);
  }
  return new UsageError(`Unknown command '${words.join(' ')}'.`);
}

/** Redacts the caller's token from everything written: it must never reach a terminal or a log. */
function redacting(w: Writer, secret: string | undefined): Writer {
  if (!secret || secret.length < 8) return w;
  return { write: (chunk: string) => w.write(chunk.split(secret).join('[redacted]')) };
}

/** Runs one CLI invocation and returns its exit status; never throws and never calls process.exit. */
export async function run(argv: string[], io: Partial<CliIO> = {}): Promise<number> {
  const env = io.env ?? process.env;
  const rawStdout = io.stdout ?? process.stdout;
  const rawStderr = io.stderr ?? process.stderr;
  const doFetch = io.fetch ?? fetch;

  let stdout = rawStdout;
  let stderr = rawStderr;
  try {
    const lenient = parseArgs({ args: argv, options: allOptions(), strict: false, allowPositionals: true });
    const token = (typeof lenient.values.token === 'string' ? lenient.values.token : undefined) ?? env.DESPACHO_TOKEN ?? env.ADMIN_TOKEN;
    stdout = redacting(rawStdout, token);
    stderr = redacting(rawStderr, token);

    const words = lenient.positionals;
    if (words.length === 0 || words[0] === 'help') {
      stdout.write(usage());
      return 0;
    }
    const command = findCommand(words);
    if (!command) throw unknownCommand(words);
    if (lenient.values.help) {
      stdout.write(usage(command));
      return 0;
    }

    const { values, positionals } = parseArgs({
      args: argv,
      options: parseSpecs({ ...globalOptions, ...command.options }),
      strict: true,
      allowPositionals: true,
    });
    const rest = positionals.slice(command.name.split(' ').length);
    const argNames = command.args ?? [];
    if (rest.length < argNames.length) throw new UsageError(`'${command.name}' needs <${argNames[rest.length]}>.`);
    if (rest.length > argNames.length) throw new UsageError(`'${command.name}' does not take '${rest[argNames.length]}'.`);
    for (const [name, spec] of Object.entries(command.options ?? {})) {
      if (spec.required && (values[name] === undefined || values[name] === '')) {
        throw new UsageError(`'${command.name}' needs --${name}${spec.value ? ` ${spec.value}` : ''}.`);
      }
    }
    if (command.auth !== false && !token) {
      throw new UsageError('No token: set DESPACHO_TOKEN (or ADMIN_TOKEN), or pass --token.');
    }
    const args = Object.fromEntries(argNames.map((n, i) => [n, rest[i]]));
    const base = baseUrlOf((str(values, 'url') ?? env.DESPACHO_URL ?? defaultUrl).replace(/\/+$/, ''));
    if (command.direct) return await command.direct({ args, options: values }, { stdout, stderr, env, fetch: doFetch, signal: io.signal, base, token });
    let call: Call | undefined = command.request({ args, options: values });
    const bearer = command.auth === false ? undefined : token;
    const api = createDespachoClient({ baseUrl: base, token: bearer, fetch: doFetch });
    api.use({ onRequest: ({ request }) => (request.headers.set('Accept', 'application/json'), request) });
    for (;;) {
      const { status, answer } = await send(call, { api, base, json: values.json === true, command }, { stdout, stderr });
      call = status === 0 && answer ? command.next?.(answer) : undefined;
      if (!call) return status;
    }
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      stderr.write(`Error: ${(err as Error).message}\nRun 'npm run cli -- help' for usage.\n`);
      return 2;
    }
    stderr.write(`Error: ${(err as Error).message}\n`);
    return 1;
  }
}

async function send(
  call: Call,
  ctx: { api: DespachoClient; base: string; json: boolean; command: Command },
  io: { stdout: Writer; stderr: Writer },
): Promise<{ status: number; answer?: ApiAnswer }> {
  let result: Awaited<ReturnType<Call>>;
  try {
    result = await call(ctx.api, { signal: AbortSignal.timeout(30_000) });
  } catch (err) {
    if (err instanceof SyntaxError) {
      io.stderr.write(`Error: ${ctx.base} answered with a body that is not JSON\n`);
      return { status: 1 };
    }
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    io.stderr.write(`Error: cannot reach ${ctx.base}: ${cause?.code ?? cause?.message ?? (err as Error).message}\n`);
    return { status: 1 };
  }
  const res = result.response;
  const body = res.ok ? result.data : result.error;
  const answer = typeof body === 'object' && body !== null ? (body as ApiAnswer) : undefined;
  const failed = !res.ok || answer?.success === false;

  if (ctx.json && answer !== undefined) {
    io.stdout.write(`${JSON.stringify(answer, null, 2)}\n`);
    if (failed) io.stderr.write(`Error: HTTP ${res.status}\n`);
    return { status: failed ? 1 : 0, answer };
  }
  if (failed || answer === undefined) {
    printFailure(res, answer, typeof body === 'string' ? body : '', io.stderr);
    return { status: 1, answer };
  }
  ctx.command.print(answer, printer(io.stdout));
  return { status: 0, answer };
}

function printFailure(res: Response, answer: ApiAnswer | undefined, text: string, w: Writer): void {
  const message = answer?.message ?? (text.trim().slice(0, 200) || res.statusText || 'no answer body');
  w.write(`Error: HTTP ${res.status}${answer?.error ? ` (${String(answer.error)})` : ''}: ${message}\n`);
  const errors = answer?.errors;
  if (errors && typeof errors === 'object') {
    for (const [field, messages] of Object.entries(errors as Record<string, unknown>)) {
      for (const m of Array.isArray(messages) ? messages : [messages]) w.write(`  ${field}: ${String(m)}\n`);
    }
  }
  const retryAfter = res.headers.get('retry-after');
  if (retryAfter) w.write(`  retry after: ${retryAfter} s\n`);
  const requestId = res.headers.get('x-request-id');
  if (requestId) w.write(`  request id: ${requestId}\n`);
}

function isMain(): boolean {
  if (!process.argv[1]) return false;
  try {
    return realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isMain()) process.exitCode = await run(process.argv.slice(2));
