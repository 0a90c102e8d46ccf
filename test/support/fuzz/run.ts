import fc from 'fast-check';
import * as v from 'valibot';
import { routes } from '#catalog';
import type { RouteDef } from '#catalog/types';
import { useClock, useSystemClock } from '#infra/clock';
import { manifestSignature } from '#core/manifests/signature';
import type { TwinJobs } from '#twin/jobs';
import {
  hostileValue,
  judgeJson,
  judgeValue,
  jsonValue,
  multipartArbitrary,
  mutatedArbitrary,
  oddNumber,
  oddString,
  toJsonText,
  validArbitrary,
  type Part,
  type Verdict,
} from './arbitraries';
import { WriteJournal } from './journal';
import { beyondSchema, csvRoutes, forms, jsonParams, paramKinds, sharedPools, signedRoutes, tenantKinds, validRefusals, withReferences } from './routes';
import { buildWorld, send, serviceClock, type Answer, type World } from './world';
import { contractProblem } from '../contract';

/**
 * The fuzz run (issue 13, item 2): for every catalog route, requests made by fast-check from a
 * seed, sent to a running twin with real tokens, each answer checked against the properties:
 *
 * 1. no 5xx;
 * 2. every 4xx is the error shape of DESIGN.md: `success: false`, `error`, `message`, and for
 *    422 validation_failed an `errors` map of field -> messages;
 * 3. a request the schemas call valid (path, query and body, with the kit's JSON rules) is never
 *    refused 422 validation_failed, except on the fields of `beyondSchema` (rules against data or
 *    files); its other refusals are 404, 409, 410 or 423 (`validRefusals`), or a status the route
 *    declares in `beyondSchema`;
 * 4. a request the schemas refuse is never accepted, and its 422 names a field the schema names;
 * 5. a refused write (4xx to POST, PUT, PATCH, DELETE) leaves nothing behind (`WriteJournal`);
 * 6. tenancy: another partner (`c`) with `a`'s real ids gets 404 or 403 (403 on admin and broker
 *    routes), no answer to `c` holds `a`'s marker, and `c`'s requests change none of `a`'s
 *    records (the journal again, whatever the answer).
 *
 * A request is one of: `valid` (from the schemas, half of them with real references), `mutated`
 * (a valid one with one field of the body, query or path made wrong), `hostile` (odd ids, query,
 * raw bodies and content types), `multipart` (the upload forms, whole or damaged), `csv` (the
 * tariff import) and `tenancy` (as `c`, on `a`'s records).
 */

export type Kind = 'valid' | 'mutated' | 'hostile' | 'multipart' | 'csv' | 'tenancy';

export interface FuzzRequest {
  kind: Kind;
  as: 'a' | 'b' | 'c' | 'admin' | 'none';
  params: Record<string, string>;
  /** `?a=b`, or '' */
  query: string;
  headers: Record<string, string>;
  body?: Buffer | string;
  /** What the schemas make of each part; undefined where there is no oracle. */
  expect: { params?: boolean; query?: Verdict; body?: Verdict };
  note: string;
}

export interface Finding {
  seed: number;
  route: string;
  index: number;
  kind: Kind;
  problem: string;
  request: string;
  response: string;
}

export interface RouteStats {
  tried: number;
  ms: number;
  /** Valid requests sent, and how many of them the service took (2xx). */
  valid: number;
  validTaken: number;
  statuses: Record<string, number>;
  kinds: Record<string, number>;
}

export interface RoundReport {
  seed: number;
  tried: number;
  ms: number;
  routes: Record<string, RouteStats>;
  findings: Finding[];
}

export interface FuzzOptions {
  apiUrl: string;
  rootUrl: string;
  adminToken: string;
  jobs: TwinJobs;
  dynamoEndpoint: string;
  seed: number;
  /** Requests per route. */
  perRoute: number;
  /** Only this route (a catalog id). */
  route?: string;
  /** Stop starting routes after this time (ms since epoch). */
  deadline?: number;
  label?: string;
}

/**
 * Every route the fuzz sends to: the whole catalog, the DELETE routes last, so a record one of
 * them deletes early in the round is still there for the other routes that name it.
 */
export const fuzzRoutes: { route: RouteDef; index: number }[] = [
  ...routes.map((route, index) => ({ route, index })).filter((r) => r.route.method !== 'DELETE'),
  ...routes.map((route, index) => ({ route, index })).filter((r) => r.route.method === 'DELETE'),
];

const writeMethods = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** One round: a fresh world, then `perRoute` requests to each route, with `seed + index of the route`. */
export async function fuzzRound(o: FuzzOptions): Promise<RoundReport> {
  const round = await startRound(o);
  try {
    await round.send(() => true);
  } finally {
    await round.stop();
  }
  return round.report;
}

/**
 * A round sent in parts (the suite's test sends the catalog in slices, each a test well under the
 * runner's limits): one world and one report for every part, the same requests as one round.
 */
export interface Round {
  report: RoundReport;
  /** Sends the requests of the routes `chosen` picks (by position in `fuzzRoutes`), in catalog order. */
  send(chosen: (position: number) => boolean): Promise<void>;
  stop(): Promise<void>;
}

export async function startRound(o: FuzzOptions): Promise<Round> {
  const started = Date.now();
  // A 429 is no finding: `send` moves the service's clock a minute on and sends the request again.
  useClock(serviceClock);
  const world = await buildWorld({ apiUrl: o.apiUrl, rootUrl: o.rootUrl, adminToken: o.adminToken, jobs: o.jobs, label: o.label ?? String(o.seed) });
  const journal = new WriteJournal(o.dynamoEndpoint);
  journal.install();
  const report: RoundReport = { seed: o.seed, tried: 0, ms: 0, routes: {}, findings: [] };
  const sendPart = async (chosen: (position: number) => boolean) => {
    // A route's seed is the round's plus its index in the catalog, whatever order it runs in.
    for (const [position, { route, index: i }] of fuzzRoutes.entries()) {
      if (!chosen(position)) continue;
      if (o.route && route.id !== o.route) continue;
      if (o.deadline && Date.now() > o.deadline) break;
      const stats: RouteStats = (report.routes[route.id] = { tried: 0, ms: 0, valid: 0, validTaken: 0, statuses: {}, kinds: {} });
      const routeStarted = Date.now();
      const requests = fc.sample(requestArbitrary(route, world), { seed: o.seed + i, numRuns: o.perRoute });
      // Making many requests can take longer than the server keeps an idle connection (5 s): a
      // health check first, sent again if it meets a connection the server has just closed, so
      // that the route's first request does not (ECONNRESET, no answer at all).
      await send(world.apiUrl, 'GET', '/health').catch(() => send(world.apiUrl, 'GET', '/health'));
      for (const [index, req] of requests.entries()) {
        guard(route, req, world);
        const writes = writeMethods.has(route.method);
        journal.begin();
        let res: Answer | undefined;
        let thrown: unknown;
        try {
          res = await sendRequest(route, req, world);
        } catch (err) {
          thrown = err;
        }
        const refused = !res || res.status >= 400;
        const left = await journal.end(writes && refused, req.kind === 'tenancy' ? world.a.accountId : undefined);
        report.tried++;
        stats.tried++;
        stats.kinds[req.kind] = (stats.kinds[req.kind] ?? 0) + 1;
        const cause = (thrown as { cause?: { code?: string; message?: string } })?.cause;
        const problems = thrown ? [`the request failed: ${String(thrown)}${cause ? ` (${cause.code ?? cause.message})` : ''}`] : check(route, req, res!, world);
        if (res) stats.statuses[res.status] = (stats.statuses[res.status] ?? 0) + 1;
        if (req.kind === 'valid') {
          stats.valid++;
          if (res && res.status < 300) stats.validTaken++;
          else if (process.env.FUZZ_DEBUG) console.log(`valid ${route.id} #${index} -> ${res?.status} ${res?.text.slice(0, 300)}\n    ${describeRequest(route, req).slice(0, 400)}`);
        }
        for (const l of left.refused) problems.push(`a refused write left this behind: ${l}`);
        for (const l of left.tenant) problems.push(`another account's request changed a record of account a: ${l}`);
        for (const problem of problems) {
          report.findings.push({ seed: o.seed + i, route: route.id, index, kind: req.kind, problem, request: describeRequest(route, req), response: res ? `${res.status} ${res.text.slice(0, 300)}` : 'none' });
        }
      }
      stats.ms = Date.now() - routeStarted;
    }
  };
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    journal.uninstall();
    useSystemClock();
    await world.stop();
    report.ms = Date.now() - started;
  };
  return { report, send: sendPart, stop };
}

// ---------------------------------------------------------------------------------------------
// Requests.

function whoFor(route: RouteDef): FuzzRequest['as'] {
  if (route.auth === 'public') return 'none';
  const roles = route.auth.roles ?? [];
  if (roles.includes('broker')) return 'b';
  if (roles.includes('admin')) return 'admin';
  return 'a';
}

function tokenOf(who: FuzzRequest['as'], w: World): string | null {
  return who === 'none' ? null : who === 'admin' ? w.admin : w[who].token;
}

/** Strings as a URL carries them: lone surrogates become U+FFFD on the way (UTF-8). */
const wellFormed = (s: string) => Buffer.from(s, 'utf8').toString('utf8');

function queryString(q: Record<string, unknown>, extra: [string, string][] = []): string {
  const pairs: [string, string][] = [...Object.entries(q).filter((e): e is [string, string] => typeof e[1] === 'string'), ...extra];
  if (pairs.length === 0) return '';
  return '?' + pairs.map(([k, x]) => `${encodeURIComponent(wellFormed(k))}=${encodeURIComponent(wellFormed(x))}`).join('&');
}

/** The query object a handler sees (API Gateway joins repeated keys with commas). */
function queryObject(query: string): Record<string, string> {
  const params = new URLSearchParams(query.slice(1));
  const out: Record<string, string> = {};
  for (const key of new Set(params.keys())) out[key] = params.getAll(key).join(',');
  return out;
}

function judgeQuery(schema: v.GenericSchema, query: string): Verdict {
  const res = v.safeParse(schema, queryObject(query));
  return res.success ? { valid: true } : { valid: false, fields: [...new Set(res.issues.map((i) => v.getDotPath(i) ?? 'body'))] };
}

/** Path values that cannot reach the route whatever the schema says ('' and dot segments). */
const unroutable = (s: string) => s === '' || /^\.{1,2}$/.test(s) || /^(%2e|\.){1,2}$/i.test(s);

function judgeParams(route: RouteDef, params: Record<string, string>): boolean {
  if (Object.values(params).some(unroutable)) return false;
  const schema = route.schemas?.params;
  const decoded = Object.fromEntries(Object.entries(params).map(([k, x]) => [k, wellFormed(x)]));
  return schema ? v.is(schema, decoded) : true;
}

function judgeBodyText(schema: v.GenericSchema, text: string): Verdict {
  if (text === '') {
    // No body reads as {} (json routes); raw routes name `body`.
    const verdict = judgeValue(schema, {});
    return verdict.valid ? verdict : { ...verdict, fields: [...verdict.fields, 'body'] };
  }
  return judgeJson(schema, text);
}

const odd = fc.oneof(
  fc.constantFrom('', 'NaN', '-1', '-0', '0', '1e400', '9007199254740993', '%00', '%zz', '%E2%80%AE', 'a'.repeat(3000), '..', '%2F..%2F', '\u202Eabc', 'null', 'undefined', '1.5', '00001', ' 1'),
  fc.string({ unit: 'binary', maxLength: 40 }).map((s) => encodeURIComponent(wellFormed(s))),
);
const nested = fc.integer({ min: 1, max: 50 }).map((n) => '{"a":'.repeat(n) + '1' + '}'.repeat(n));
const rawBody = fc.oneof(
  jsonValue.map((x) => JSON.stringify(x) ?? 'null'),
  hostileValue.map((x) => toJsonText(x)),
  nested,
  fc.constantFrom('{"__proto__":{"x":1}}', '{"constructor":{"prototype":{}}}', '{"n":1e400}', '{"n":-1e400}', '{"n":9007199254740993}', '[]', '[{}]', '""', '{}', '{"a":', '\uFEFF{}', 'null', '{"a":1,"a":2}'),
);
const contentType = fc.constantFrom<string | undefined>(
  'application/json', 'application/json', 'application/json; charset=utf-8', 'text/plain', undefined, 'application/vnd.x+json', 'multipart/form-data; boundary=zz', 'application/x-www-form-urlencoded', 'text/csv', 'APPLICATION/JSON', 'application/json; charset=latin1',
);
const oddQuery = fc
  .array(fc.tuple(fc.constantFrom('page', 'per_page', 'limit', 'cursor', 'status', 'q', 'from', 'to', 'sort', 'format', 'state', 'account_id', 'courier_code', 'date_from', 'x', '__proto__'), odd), { maxLength: 4 })
  .map((pairs) => (pairs.length ? '?' + pairs.map(([k, x]) => `${k}=${x}`).join('&') : ''));
const oddIdempotencyKey = fc.constantFrom('not-a-uuid', '', ' ', 'x'.repeat(500), '00000000-0000-0000-0000-00000000000g', '\u00e9\u00ff', 'a\tb');

function paramArbitrary(route: RouteDef, w: World, realOnly = false): fc.Arbitrary<Record<string, string>> {
  const kinds = paramKinds(route);
  const names = Object.keys(kinds);
  if (names.length === 0) return fc.constant({});
  const schema = route.schemas?.params as unknown as { entries?: Record<string, v.GenericSchema> } | undefined;
  const entries: Record<string, fc.Arbitrary<string>> = {};
  for (const name of names) {
    const pool = w.pools[kinds[name]] ?? sharedPools[kinds[name]] ?? [];
    const real = pool.length ? fc.constantFrom(...pool) : undefined;
    const made = schema?.entries?.[name] ? (validArbitrary(schema.entries[name], `${route.id}.${name}`).filter((x) => typeof x === 'string') as fc.Arbitrary<string>) : fc.constant('1');
    entries[name] = real && realOnly ? real : real ? fc.oneof({ arbitrary: real, weight: 4 }, { arbitrary: made, weight: 1 }) : made;
  }
  return fc.record(entries);
}

function bodyArbitrary(route: RouteDef, w: World): fc.Arbitrary<Record<string, unknown> | undefined> {
  const schema = route.schemas?.body;
  if (!schema || route.method === 'GET' || route.method === 'DELETE') return fc.constant(undefined);
  return validArbitrary(schema, `${route.id}.body`) as fc.Arbitrary<Record<string, unknown>>;
}

const jsonTypes = fc.constantFrom('application/json', 'application/json', 'application/json; charset=utf-8', 'application/vnd.despacho+json');

function sign(route: RouteDef, req: FuzzRequest, w: World, how: 'good' | 'none' | 'bad' = 'good') {
  if (!signedRoutes.has(route.id) || req.as !== 'a' || how === 'none') return;
  req.headers['x-signature'] = how === 'good' ? manifestSignature(w.signingSecret, req.body ?? '') : manifestSignature('another secret', req.body ?? '');
}

/** A valid request's parts: real ids (or schema-made), a schema-made query, a schema-made body with or without references. */
function validParts(route: RouteDef, w: World, opts: { realIds?: boolean; references?: boolean } = {}) {
  const query = route.schemas?.query ? validArbitrary(route.schemas.query, `${route.id}.query`) : fc.constant({});
  return fc
    .record({
      params: paramArbitrary(route, w, opts.realIds),
      query,
      body: bodyArbitrary(route, w),
      refs: fc.boolean(),
      n: fc.nat(),
      type: jsonTypes,
      key: fc.option(fc.uuid(), { freq: 3 }),
    })
    .map((p) => {
      let body = p.body;
      const params = { ...p.params, ...jsonParams[route.id] };
      if (opts.references) p.refs = true;
      if (body && p.refs) {
        const linked = withReferences(route.id, body, params, w, p.n);
        // References must keep the body valid; a rule here that breaks it is a bug of the fuzz.
        if (!judgeValue(route.schemas!.body!, linked).valid) throw new Error(`withReferences made an invalid ${route.id} body: ${toJsonText(linked).slice(0, 300)}`);
        body = linked;
      }
      return { ...p, params, body, query: p.query as Record<string, unknown> };
    });
}

function requestArbitrary(route: RouteDef, w: World): fc.Arbitrary<FuzzRequest> {
  const who = whoFor(route);
  const bodySchema = route.method === 'GET' || route.method === 'DELETE' ? undefined : route.schemas?.body;
  const querySchema = route.schemas?.query;
  const hasParams = Object.keys(paramKinds(route)).length > 0;
  const base = validParts(route, w);
  const form = forms[route.id];

  const valid: fc.Arbitrary<FuzzRequest> = base.map((p) => {
    const text = p.body === undefined ? undefined : toJsonText(p.body);
    const req: FuzzRequest = {
      kind: 'valid',
      as: who,
      params: p.params,
      query: queryString(p.query),
      headers: { ...(text !== undefined ? { 'content-type': p.type } : {}), ...(p.key ? { 'idempotency-key': p.key } : {}) },
      body: text,
      expect: {},
      note: p.refs ? 'with references' : 'from the schemas',
    };
    req.expect = { params: judgeParams(route, req.params), query: querySchema ? judgeQuery(querySchema, req.query) : undefined, body: bodySchema && text !== undefined ? judgeBodyText(bodySchema, text) : undefined };
    sign(route, req, w);
    return req;
  });

  const targets: fc.Arbitrary<'body' | 'query' | 'params'>[] = [];
  if (bodySchema) targets.push(fc.constant('body'), fc.constant('body'), fc.constant('body'));
  if (querySchema) targets.push(fc.constant('query'));
  if (hasParams) targets.push(fc.constant('params'));
  const mutated: fc.Arbitrary<FuzzRequest> | undefined = targets.length
    ? fc
        .record({ p: base, target: fc.oneof(...targets), mutation: bodySchema ? mutatedArbitrary(bodySchema) : fc.constant(undefined), oddValue: fc.oneof(oddString, oddNumber.map(String)), pick: fc.nat(), dup: fc.boolean() })
        .map(({ p, target, mutation, oddValue, pick, dup }) => {
          let params = p.params;
          let query = queryString(p.query);
          let text = p.body === undefined ? undefined : toJsonText(p.body);
          let note = '';
          if (target === 'body' && mutation) {
            text = toJsonText(mutation.value);
            note = `body ${mutation.op} at ${mutation.path.join('.') || '(root)'}`;
          } else if (target === 'query') {
            const keys = Object.keys((querySchema as unknown as { entries?: object })?.entries ?? {});
            const key = keys.length ? keys[pick % keys.length] : 'x';
            query = dup ? queryString(p.query, [[key, oddValue]]) : queryString({ ...p.query, [key]: oddValue });
            note = `query ${key}=${JSON.stringify(oddValue).slice(0, 60)}${dup ? ' (repeated)' : ''}`;
          } else if (target === 'params') {
            const names = Object.keys(params);
            const name = names[pick % names.length];
            params = { ...params, [name]: oddValue };
            note = `path ${name}=${JSON.stringify(oddValue).slice(0, 60)}`;
          }
          const req: FuzzRequest = {
            kind: 'mutated',
            as: who,
            params,
            query,
            headers: text !== undefined ? { 'content-type': p.type } : {},
            body: text,
            expect: {},
            note,
          };
          req.expect = { params: judgeParams(route, params), query: querySchema ? judgeQuery(querySchema, query) : undefined, body: bodySchema && text !== undefined ? judgeBodyText(bodySchema, text) : undefined };
          sign(route, req, w);
          return req;
        })
    : undefined;

  const hostile: fc.Arbitrary<FuzzRequest> = fc
    .record({ params: fc.array(odd, { minLength: 4, maxLength: 4 }), keepIds: fc.boolean(), real: paramArbitrary(route, w), query: oddQuery, body: rawBody, type: contentType, key: fc.option(oddIdempotencyKey, { freq: 4 }), signature: fc.constantFrom('good', 'none', 'bad') as fc.Arbitrary<'good' | 'none' | 'bad'> })
    .map((h) => {
      let n = 0;
      const params = h.keepIds ? h.real : Object.fromEntries(Object.keys(paramKinds(route)).map((name) => [name, h.params[n++ % 4] || 'x']));
      const req: FuzzRequest = {
        kind: 'hostile',
        as: who,
        params,
        query: h.query,
        headers: { ...(h.type ? { 'content-type': h.type } : {}), ...(h.key !== null ? { 'idempotency-key': h.key } : {}) },
        body: h.body,
        expect: {},
        note: `content-type ${h.type ?? 'none'}${h.key !== null ? `, Idempotency-Key ${JSON.stringify(h.key).slice(0, 40)}` : ''}, signature ${h.signature}`,
      };
      sign(route, req, w, h.signature);
      return req;
    });

  const tenancy: fc.Arbitrary<FuzzRequest> | undefined =
    who !== 'none'
      ? validParts(route, w, { realIds: true, references: true }).map((p): FuzzRequest => {
          const text = p.body === undefined ? undefined : toJsonText(p.body);
          const headers: Record<string, string> = text !== undefined ? { 'content-type': p.type } : {};
          return {
            kind: 'tenancy' as const,
            as: 'c' as const,
            params: p.params,
            query: queryString(p.query),
            headers,
            body: text,
            expect: {},
            note: "account c on account a's records",
          };
        })
      : undefined;

  const multipart: fc.Arbitrary<FuzzRequest> | undefined = form ? multipartRequests(route, w, who, form) : undefined;
  const csv: fc.Arbitrary<FuzzRequest> | undefined = csvRoutes.has(route.id) ? csvRequests(who) : undefined;

  // A route that takes only a form or a CSV (no JSON body schema) gets those instead of JSON.
  const formOnly = (form || csvRoutes.has(route.id)) && !bodySchema;
  const options: { arbitrary: fc.Arbitrary<FuzzRequest>; weight: number }[] = [{ arbitrary: hostile, weight: 2 }];
  if (!formOnly) options.push({ arbitrary: valid, weight: 3 });
  if (mutated) options.push({ arbitrary: mutated, weight: 4 });
  if (tenancy) options.push({ arbitrary: tenancy, weight: 1 });
  if (multipart) options.push({ arbitrary: multipart, weight: 6 });
  if (csv) options.push({ arbitrary: csv, weight: 5 });
  return fc.oneof(...options);
}

/** The multipart form of an upload route: fields from its schema (valid or not), a file, then damage (or none). */
function multipartRequests(route: RouteDef, w: World, who: FuzzRequest['as'], form: (typeof forms)[string]): fc.Arbitrary<FuzzRequest> {
  const fieldValues = fc.oneof(
    { arbitrary: validArbitrary(form.fields, `${route.id}.form`).map((x) => ({ values: x as Record<string, unknown>, valid: true })), weight: 3 },
    { arbitrary: mutatedArbitrary(form.fields).map((m) => ({ values: m.value as Record<string, unknown>, valid: false })), weight: 2 },
  );
  const files = {
    document: fc.constantFrom(
      { name: 'guia.pdf', data: w.files.pdf, type: 'application/pdf', good: true },
      { name: 'guia.pdf', data: w.files.pdf.subarray(0, 40), type: 'application/pdf', good: false },
      { name: 'virus.exe', data: Buffer.from('MZ\x90\x00'), type: 'application/octet-stream', good: false },
      { name: 'hoja.xlsx', data: w.files.xlsx, type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', good: true },
      { name: 'empty.pdf', data: Buffer.alloc(0), type: 'application/pdf', good: false },
      { name: 'fake.png', data: w.files.pdf, type: 'image/png', good: false },
    ),
    manifestFile: fc.constantFrom(
      { name: 'manifiesto.json', data: w.files.manifestJson, type: 'application/json', good: true },
      { name: 'manifiesto.json', data: Buffer.from('{"mawbNumber": '), type: 'application/json', good: false },
      { name: 'manifiesto.xlsx', data: w.files.xlsx, type: 'application/octet-stream', good: true },
      { name: 'manifiesto.xlsx', data: w.files.xlsx.subarray(0, 100), type: 'application/octet-stream', good: false },
      { name: 'manifiesto.csv', data: Buffer.from('a,b\n1,2\n'), type: 'text/csv', good: false },
      { name: 'deep.json', data: Buffer.from('['.repeat(5000) + ']'.repeat(5000)), type: 'application/json', good: false },
    ),
    workbook: fc.constantFrom(
      { name: 'manifiesto.xlsx', data: w.files.xlsx, type: 'application/octet-stream', good: true },
      { name: 'raro.xlsx', data: w.files.oddXlsx, type: 'application/octet-stream', good: false },
      { name: 'manifiesto.xlsx', data: w.files.xlsx.subarray(0, 200), type: 'application/octet-stream', good: false },
      { name: 'manifiesto.xls', data: Buffer.from('%PDF-1.7 not a sheet'), type: 'application/vnd.ms-excel', good: false },
      { name: 'manifiesto.json', data: w.files.manifestJson, type: 'application/json', good: false },
    ),
  }[form.file];
  const courier = fc.constantFrom(...sharedPools.courier.filter((c) => c !== 'default'));
  return fc
    .record({ fields: fieldValues, file: files, withFile: fc.boolean().map((b) => b || true), slug: courier, key: fc.option(fc.uuid(), { freq: 3 }) })
    .chain((r) => {
      const parts: Part[] = Object.entries(r.fields.values ?? {}).map(([name, x]) => ({ name, value: typeof x === 'string' ? x : toJsonText(x) }));
      if (r.withFile) parts.push({ name: 'file', value: r.file.data, fileName: r.file.name, type: r.file.type });
      return multipartArbitrary(fc.constant(parts)).chain((mp) =>
        paramArbitrary(route, w, true).map((params) => {
          if (route.id === 'CouriersSubmit') params = { courier: r.slug };
          const req: FuzzRequest = {
            kind: 'multipart',
            as: who,
            params,
            query: '',
            headers: { 'content-type': mp.contentType, ...(r.key ? { 'idempotency-key': r.key } : {}) },
            body: mp.body,
            expect: {},
            note: `multipart ${mp.damage}, fields ${r.fields.valid ? 'valid' : 'mutated'}, file ${r.file.name} (${r.file.good ? 'good' : 'bad'})`,
          };
          const whole = mp.damage === 'intact' || mp.damage === 'preamble' || mp.damage === 'quoted-boundary';
          // Only a whole form of valid fields (multipart text: what the schema reads) is judged valid.
          if (whole && r.fields.valid && r.file.good && typeof r.fields.values === 'object' && r.fields.values) {
            const asText = Object.fromEntries(Object.entries(r.fields.values).map(([k, x]) => [k, typeof x === 'string' ? x : toJsonText(x)]));
            const parsed = route.id === 'CouriersSubmit' ? asText : { ...asText, ...('metadata' in asText ? { metadata: JSON.parse(asText.metadata) } : {}) };
            if (Object.values(asText).every((x) => !x.includes('\r') && Buffer.from(x).toString() === x)) req.expect = { params: true, body: judgeValue(form.fields, parsed) };
          }
          sign(route, req, w);
          return req;
        }),
      );
    });
}

/** Tariff CSV bodies: a good table, or one with bad lines, odd bytes and odd content types. */
function csvRequests(who: FuzzRequest['as']): fc.Arbitrary<FuzzRequest> {
  const goodLine = fc.tuple(fc.stringMatching(/^\d{8}$/), fc.stringMatching(/^[A-Za-z ]{1,30}$/), fc.integer({ min: 0, max: 35 })).map(([ncm, d, r]) => `${ncm},${d.trim() || 'x'},${r}`);
  const badLine = fc.oneof(oddString.map((s) => `${s},${s},${s}`), fc.constantFrom('12,x,1', '85171300,,1', '85171300,x,-1', '85171300,x,1e400', '"unterminated,x,1', '85171300,x', '85171300,x,1,a,b,c'));
  return fc
    .record({ header: fc.constantFrom('ncm,description,duty_rate', 'ncm,description,duty_rate,description_en,keywords', 'ncm,description', '\uFEFFncm,description,duty_rate', ''), lines: fc.array(fc.oneof({ arbitrary: goodLine, weight: 4 }, { arbitrary: badLine, weight: 1 }), { minLength: 0, maxLength: 6 }), type: fc.constantFrom('text/csv', 'text/plain', 'application/json', 'text/csv; charset=utf-8'), latin1: fc.boolean() })
    .map((r) => {
      const extraCols = r.header.endsWith('keywords');
      const text = [r.header, ...r.lines.map((l) => (extraCols ? `${l},,` : l))].join('\n');
      return {
        kind: 'csv' as const,
        as: who,
        params: {},
        query: '',
        headers: { 'content-type': r.type },
        body: r.latin1 ? Buffer.from(text + '\nñ', 'latin1') : text,
        expect: {},
        note: `tariff csv, ${r.lines.length} lines`,
      };
    });
}

/** Never let the fuzz revoke its own tokens or re-key its own accounts. */
function guard(route: RouteDef, req: FuzzRequest, w: World) {
  const kinds = paramKinds(route);
  for (const [name, kind] of Object.entries(kinds)) {
    const value = req.params[name];
    if (value === undefined) continue;
    const trimmed = wellFormed(value).replace(/^0+/, '');
    if ((kind === 'token' || kind === 'myToken') && w.protectedTokenIds.has(trimmed)) req.params[name] = w.pools[kind][0];
    if (kind === 'account' && w.protectedAccountIds.has(trimmed)) req.params[name] = w.pools.account[0];
  }
}

function pathOf(route: RouteDef, req: FuzzRequest): string {
  return route.path.replace(/\{(\w+)\}/g, (_m, name) => {
    const value = req.params[name] ?? '';
    // Odd path values (the `odd` arbitrary) are already encoded; the rest are encoded here.
    return req.kind === 'hostile' ? value : encodeURIComponent(wellFormed(value));
  });
}

async function sendRequest(route: RouteDef, req: FuzzRequest, w: World): Promise<Answer> {
  const base = route.root ? w.rootUrl : w.apiUrl;
  return send(base, route.method, pathOf(route, req) + req.query, { token: tokenOf(req.as, w), raw: req.body, headers: req.headers });
}

function describeRequest(route: RouteDef, req: FuzzRequest): string {
  const body = req.body === undefined ? '' : Buffer.isBuffer(req.body) ? `<${req.body.length} bytes> ${req.body.subarray(0, 160).toString('latin1')}` : `<${Buffer.byteLength(req.body)} bytes> ${req.body.slice(0, 300)}`;
  return `${route.method} ${pathOf(route, req).slice(0, 200)}${req.query.slice(0, 200)} as ${req.as} [${req.note}] ${JSON.stringify(req.headers).slice(0, 200)} ${body}`;
}

// ---------------------------------------------------------------------------------------------
// Properties.

const related = (a: string, b: string) => a === b || a.startsWith(b + '.') || b.startsWith(a + '.') || a === 'body' || b === 'body';

function check(route: RouteDef, req: FuzzRequest, res: Answer, w: World): string[] {
  const problems: string[] = [];
  // Every answer keeps the contract openapi.json declares (as every integration test's does).
  if (!route.root) {
    const contract = contractProblem(route.method, pathOf(route, req) + req.query, res, res.status >= 300 && res.status < 400);
    if (contract) problems.push(`contract: ${contract}`);
  }
  const body = res.body;
  const declared = route.id === 'WebhooksTest' && res.status === 502 && body?.success === false && body?.data !== undefined;
  if (res.status >= 500 && !declared) problems.push(`answered ${res.status}`);
  if (res.status >= 400 && !declared) {
    if (!body || body.success !== false || typeof body.error !== 'string' || typeof body.message !== 'string') problems.push(`a ${res.status} without the error shape`);
    else if (res.status === 422 && body.error === 'validation_failed') {
      const errors = body.errors;
      const fine = errors && typeof errors === 'object' && !Array.isArray(errors) && Object.keys(errors).length > 0 && Object.values(errors).every((m) => Array.isArray(m) && m.every((x) => typeof x === 'string'));
      if (!fine) problems.push('a 422 without an errors map of field -> messages');
    }
  }
  if (req.kind === 'tenancy') {
    if (res.text.includes(w.marker)) problems.push("account c's answer holds account a's data");
    const kinds = Object.values(paramKinds(route));
    const roleRoute = route.auth !== 'public' && (route.auth.roles ?? []).length > 0;
    if (roleRoute && res.status !== 403) problems.push(`a partner token on a ${(route.auth as { roles: string[] }).roles.join(' or ')} route answered ${res.status}, not 403`);
    else if (kinds.some((k) => tenantKinds.has(k)) && res.status !== 404 && res.status !== 403) problems.push(`account c on account a's record answered ${res.status}, not 404 or 403`);
    return problems;
  }
  const e = req.expect;
  const errorKeys: string[] = res.status === 422 && body?.error === 'validation_failed' && body.errors ? Object.keys(body.errors) : [];
  const paramsBad = e.params === false;
  const queryBad = e.query && !e.query.valid;
  const bodyBad = e.body && !e.body.valid;
  if (paramsBad) {
    if (res.status < 400) problems.push(`accepted a path the schema refuses (${res.status})`);
  } else if (queryBad || bodyBad) {
    if (res.status < 400) problems.push(`accepted what the schema refuses (${res.status}): ${[...(queryBad ? (e.query as { fields: string[] }).fields : []), ...(bodyBad ? (e.body as { fields: string[] }).fields : [])].join(', ')}`);
    const expected = [...(queryBad ? (e.query as { fields: string[] }).fields : []), ...(bodyBad ? (e.body as { fields: string[] }).fields : [])];
    if (errorKeys.length && expected.length && !errorKeys.some((k) => expected.some((x) => related(k, x)))) {
      problems.push(`a 422 naming ${errorKeys.join(', ')} where the schema finds ${expected.join(', ')}`);
    }
  } else if (e.params === true && (e.query === undefined || e.query.valid) && (e.body === undefined || e.body.valid) && (e.body || e.query || route.schemas?.params)) {
    const beyond = beyondSchema[route.id];
    if (errorKeys.length) {
      const outside = errorKeys.filter((k) => !(beyond?.fields ?? []).some((f) => k === f || k.startsWith(f + '.')));
      if (outside.length) problems.push(`refused a schema-valid request 422 on ${outside.join(', ')}: ${JSON.stringify(body.errors).slice(0, 200)}`);
    } else if (res.status >= 400 && !declared && !validRefusals.has(res.status) && !(beyond?.statuses ?? []).includes(res.status)) {
      problems.push(`refused a schema-valid request ${res.status} ${body?.error ?? ''}`);
    }
  }
  return problems;
}
