/**
 * Runs a Postman collection (v2.1) from top to bottom as Postman's Collection Runner does, without
 * Postman: each request with the collection's variables, its auth and its scripts, the subset of
 * the `pm` API our generated scripts use (collection variables, `replaceIn` with `{{$guid}}`,
 * `pm.test`, `pm.response.to.have.status`, `pm.sendRequest`). For the test that sends every
 * request of clients/postman to a twin (test/integration/system/postman.test.ts) and for
 * `npm run postman:record`, which saves the twin's answers as the requests' examples.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { extname, join } from 'node:path';

const mimeTypes: Record<string, string> = { '.pdf': 'application/pdf', '.json': 'application/json', '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' };

type FormField = { key: string; value?: string; src?: string; type?: string; disabled?: boolean };

/** A multipart form as Postman sends it: text fields, and files read from the working directory. */
function formOf(fields: FormField[], dir: string, replaceIn: (s: string) => string): FormData {
  const form = new FormData();
  for (const f of fields) {
    if (f.disabled) continue;
    if (f.type === 'file' && f.src) form.append(f.key, new Blob([readFileSync(join(dir, f.src))], { type: mimeTypes[extname(f.src)] ?? 'application/octet-stream' }), f.src.split('/').pop());
    else form.append(f.key, replaceIn(f.value ?? ''));
  }
  return form;
}

export interface CollectionItem {
  name: string;
  item?: CollectionItem[];
  request?: {
    method: string;
    url: { path: string[]; host: string[]; query?: { key: string; value: string; disabled?: boolean }[]; variable?: { key: string; value: string }[] };
    header?: { key: string; value: string; disabled?: boolean }[];
    body?: { mode: string; raw?: string; formdata?: FormField[] };
    auth?: { type: string; bearer?: { key: string; value: string }[] };
  };
  event?: { listen: string; script: { exec: string[] } }[];
}

export interface Collection {
  item: CollectionItem[];
  auth?: CollectionItem['request'] extends infer R ? (R extends { auth?: infer A } ? A : never) : never;
  variable?: { key: string; value: string }[];
}

export interface RunStep {
  name: string;
  method: string;
  /** The request's path as the collection writes it (`/api/v1/orders/:id`). */
  template: string;
  url: string;
  status: number;
  headers: Headers;
  text: string;
  /** The failed `pm.test`s and script errors of this request, empty when it passed. */
  failures: string[];
}

/** Every request of a collection, in order, with the folder path in its name. */
export function requestsOf(items: CollectionItem[], prefix = ''): CollectionItem[] {
  return items.flatMap((n) => (n.request ? [{ ...n, name: prefix + n.name }] : requestsOf(n.item ?? [], `${prefix}${n.name} / `)));
}

interface ScriptResponse {
  code: number;
  text(): string;
  json(): any;
  headers: Headers;
}

function responseOf(status: number, text: string, headers: Headers): ScriptResponse {
  return { code: status, text: () => text, json: () => JSON.parse(text), headers };
}

/**
 * Runs every request; `variables` are set over the collection's own. `after` runs after each
 * request (the test lets the twin's queues settle there, as a running twin does by itself).
 */
export async function runCollection(collection: Collection, variables: Record<string, string>, opts: { workingDir: string; after?: (step: RunStep) => Promise<void> }): Promise<RunStep[]> {
  const vars = new Map<string, string>((collection.variable ?? []).map((v) => [v.key, v.value]));
  for (const [k, v] of Object.entries(variables)) vars.set(k, v);
  const replaceIn = (text: string) => text.replace(/\{\{(\$?[\w-]+)\}\}/g, (whole, name: string) => (name === '$guid' ? randomUUID() : (vars.get(name) ?? whole)));

  const steps: RunStep[] = [];
  for (const item of requestsOf(collection.item)) {
    const req = item.request!;
    const failures: string[] = [];
    const pending: Promise<void>[] = [];
    let response: ScriptResponse | undefined;
    const pm = {
      collectionVariables: { get: (k: string) => vars.get(k), set: (k: string, v: unknown) => void vars.set(k, String(v)) },
      variables: { get: (k: string) => vars.get(k), replaceIn },
      test: (name: string, fn: () => void) => {
        try {
          fn();
        } catch (e) {
          failures.push(`${name}: ${(e as Error).message}`);
        }
      },
      get response() {
        const r = response!;
        return { ...r, to: { have: { status: (n: number) => { if (r.code !== n) throw new Error(`expected status ${n}, got ${r.code}: ${r.text().slice(0, 500)}`); } } } };
      },
      sendRequest: (r: { url: string; method: string; header?: Record<string, string>; body?: { mode: string; raw?: string; formdata?: FormField[] } }, cb: (err: unknown, res?: ScriptResponse) => void) => {
        pending.push(
          (async () => {
            const body = r.body?.mode === 'formdata' ? formOf(r.body.formdata ?? [], opts.workingDir, replaceIn) : r.body?.raw;
            const res = await fetch(r.url, { method: r.method, headers: r.header, body });
            const text = await res.text();
            cb(null, responseOf(res.status, text, res.headers));
          })().catch((e) => void failures.push(`pm.sendRequest: ${(e as Error).message}`)),
        );
      },
    };
    const run = async (listen: string) => {
      for (const e of item.event ?? []) {
        if (e.listen !== listen) continue;
        try {
          new Function('pm', e.script.exec.join('\n'))(pm);
        } catch (err) {
          failures.push(`${listen} script: ${(err as Error).message}`);
        }
        await Promise.all(pending.splice(0));
      }
    };
    await run('prerequest');

    const pathVars = new Map((req.url.variable ?? []).map((v) => [v.key, v.value]));
    const path = req.url.path.map((seg) => (seg.startsWith(':') ? encodeURIComponent(replaceIn(pathVars.get(seg.slice(1)) ?? '')) : seg)).join('/');
    const query = (req.url.query ?? []).filter((q) => !q.disabled).map((q) => `${encodeURIComponent(q.key)}=${encodeURIComponent(replaceIn(q.value))}`);
    const url = `${replaceIn(req.url.host.join('.'))}/${path}${query.length ? `?${query.join('&')}` : ''}`;
    const headers = new Headers();
    for (const h of req.header ?? []) if (!h.disabled) headers.set(h.key, replaceIn(h.value));
    const auth = req.auth ?? collection.auth;
    if (auth?.type === 'bearer') headers.set('Authorization', `Bearer ${replaceIn(auth.bearer?.find((b) => b.key === 'token')?.value ?? '')}`);
    let body: string | FormData | undefined;
    if (req.body?.mode === 'raw') body = replaceIn(req.body.raw ?? '');
    if (req.body?.mode === 'formdata') {
      body = formOf(req.body.formdata ?? [], opts.workingDir, replaceIn);
      headers.delete('Content-Type');
    }
    const res = await fetch(url, { method: req.method, headers, body, redirect: 'manual' });
    const text = await res.text();
    response = responseOf(res.status, text, res.headers);
    await run('test');
    const step = { name: item.name, method: req.method, template: '/' + req.url.path.join('/'), url, status: res.status, headers: res.headers, text, failures };
    steps.push(step);
    await opts.after?.(step);
  }
  return steps;
}
