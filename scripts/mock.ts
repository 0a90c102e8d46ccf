/**
 * `npm run mock`: a mock of the whole API from clients/openapi.json, with no twin, no database and
 * no AWS: Prism (@stoplight/prism-cli) on a private port behind a small front on MOCK_PORT (4010).
 * Prism answers a route's lowest 2xx unless the request asks for another (`Prefer: code=202`);
 * the front asks for the route's own success status (`x-success-status`) when the request names
 * none, so a submission gets its 202, not the 200 of a replay. Everything else is Prism's: the
 * recorded examples, 401 without a token, 422 for a request that breaks the document.
 * test/unit/client/mock.test.ts holds every operation's status to the document.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { once } from 'node:events';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { projectRoot } from '#lib/functions';

interface Operation {
  'x-success-status'?: number;
  responses: Record<string, unknown>;
}

const documentFile = join(projectRoot, 'clients', 'openapi.json');
const doc = JSON.parse(readFileSync(documentFile, 'utf8')) as { paths: Record<string, Record<string, Operation>> };

/** Each path template as a pattern, with the status to ask Prism for when it is not its lowest 2xx. */
const preferred = Object.entries(doc.paths).flatMap(([path, ops]) =>
  Object.entries(ops).flatMap(([method, op]) => {
    const lowest = Object.keys(op.responses).filter((s) => /^2\d\d$/.test(s)).sort()[0];
    const wanted = op['x-success-status'];
    if (!wanted || String(wanted) === lowest) return [];
    const pattern = new RegExp('^' + path.replace(/\{\w+\}/g, '[^/]+') + '$');
    return [{ method: method.toUpperCase(), pattern, code: wanted }];
  }),
);

/** The success status to ask for: undefined when Prism's own choice is the route's. */
export function preferredCode(method: string, pathname: string): number | undefined {
  return preferred.find((p) => p.method === method && p.pattern.test(pathname))?.code;
}

async function freePort(): Promise<number> {
  const s = createNetServer().listen(0, '127.0.0.1');
  await once(s, 'listening');
  const { port } = s.address() as AddressInfo;
  s.close();
  await once(s, 'close');
  return port;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  const host = '127.0.0.1';
  const port = Number(process.env.MOCK_PORT ?? 4010);
  const prismPort = await freePort();
  const prism = spawn(join(projectRoot, 'node_modules', '.bin', 'prism'), ['mock', '--host', host, '--port', String(prismPort), '--dynamic=false', documentFile], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  prism.stdout.on('data', (c: Buffer) => {
    const text = String(c);
    if (!/Prism is listening/.test(output + text)) process.stdout.write(text);
    output += text;
  });
  prism.once('exit', (code) => process.exit(code ?? 1));
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => (prism.kill(signal), process.exit(0)));
  while (!/Prism is listening/.test(output)) await once(prism.stdout, 'data');

  const front = createServer((req, res) => {
    const headers = { ...req.headers };
    const code = headers.prefer ? undefined : preferredCode(req.method ?? 'GET', new URL(req.url ?? '/', 'http://mock').pathname);
    if (code) headers.prefer = `code=${code}`;
    const upstream = request({ host, port: prismPort, method: req.method, path: req.url, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', (e) => (res.writeHead(502), res.end(String(e))));
    req.pipe(upstream);
  });
  front.listen(port, host);
  await once(front, 'listening');
  console.log(`Prism is listening on http://${host}:${port} (the mock of clients/openapi.json)`);
}
