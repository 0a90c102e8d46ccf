import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { parseMultipart } from '#http/kit/multipart';

/*
 * S3's POST Object policy, which moto 5.2 does not check (it stores any POST), played in front of
 * moto by the lane as S3 documents it (Amazon S3 API Reference, "Authenticating Requests in
 * Browser-Based Uploads Using POST (AWS Signature Version 4)" and "Creating a POST Policy"):
 * the SigV4 signature of the base64 policy, its expiration, every condition (exact matches,
 * `eq`, `starts-with`, `content-length-range`), and no form field the policy does not name. A
 * form that passes is forwarded to moto unchanged; every other request passes through. The
 * functions' S3 client points here (`AWS_ENDPOINT_URL_S3`), so the presigned POSTs they hand out
 * come here.
 */

export interface GateOptions {
  /** moto's URL. */
  target: string;
  /** The secret key the functions sign with (the lane's `test`). */
  secretAccessKey: string;
  /** The lane's clock. */
  now(): Date;
}

/** Fields S3 never asks a policy to name. */
const exempt = new Set(['policy', 'x-amz-signature', 'file']);

export function s3Error(status: number, code: string, message: string) {
  return { status, body: `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message.replace(/[<>&]/g, '')}</Message></Error>` };
}

function hmac(key: Buffer | string, data: string): Buffer {
  return createHmac('sha256', key).update(data).digest();
}

/** The verdict S3 gives a browser-based upload: undefined when it would store it. */
export function checkPostPolicy(bucket: string, fields: Record<string, string>, fileBytes: number, opts: Pick<GateOptions, 'secretAccessKey' | 'now'>) {
  const get = (name: string) => Object.entries(fields).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
  const denied = (message: string) => s3Error(403, 'AccessDenied', message);
  const encoded = get('policy');
  const signature = get('x-amz-signature');
  const credential = get('x-amz-credential');
  if (!encoded || !signature || !credential || get('x-amz-algorithm') !== 'AWS4-HMAC-SHA256' || !get('x-amz-date')) {
    return s3Error(400, 'InvalidArgument', 'Bucket POST must contain a policy, x-amz-algorithm AWS4-HMAC-SHA256, x-amz-credential, x-amz-date and x-amz-signature.');
  }
  const [, date, region, service, terminal] = credential.split('/');
  if (!date || !region || service !== 's3' || terminal !== 'aws4_request') return denied('The credential scope is malformed.');
  const key = hmac(hmac(hmac(hmac(`AWS4${opts.secretAccessKey}`, date), region), service), terminal);
  const expected = hmac(key, encoded).toString('hex');
  if (expected.length !== signature.length || !timingSafeEqual(Buffer.from(expected), Buffer.from(signature))) {
    return denied('The request signature we calculated does not match the signature you provided.');
  }
  let policy: { expiration?: string; conditions?: unknown[] };
  try {
    policy = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8'));
  } catch {
    return s3Error(400, 'InvalidPolicyDocument', 'Invalid Policy: Invalid JSON.');
  }
  if (!policy.expiration || !(Date.parse(policy.expiration) > opts.now().getTime())) return denied('Invalid according to Policy: Policy expired.');
  const named = new Set<string>(['bucket']);
  const value = (name: string) => (name.toLowerCase() === 'bucket' ? bucket : get(name));
  for (const condition of policy.conditions ?? []) {
    if (Array.isArray(condition)) {
      const [op, a, b] = condition as [string, unknown, unknown];
      if (op === 'content-length-range') {
        if (fileBytes < Number(a)) return s3Error(400, 'EntityTooSmall', 'Your proposed upload is smaller than the minimum allowed size');
        if (fileBytes > Number(b)) return s3Error(400, 'EntityTooLarge', 'Your proposed upload exceeds the maximum allowed size');
        continue;
      }
      const field = String(a).replace(/^\$/, '');
      named.add(field.toLowerCase());
      const actual = value(field) ?? '';
      const ok = op === 'eq' ? actual === b : op === 'starts-with' ? actual.startsWith(String(b)) : false;
      if (!ok) return denied(`Invalid according to Policy: Policy Condition failed: ${JSON.stringify(condition)}`);
    } else if (condition && typeof condition === 'object') {
      for (const [field, expected] of Object.entries(condition)) {
        named.add(field.toLowerCase());
        if (value(field) !== expected) return denied(`Invalid according to Policy: Policy Condition failed: ["eq", "$${field}", ${JSON.stringify(expected)}]`);
      }
    }
  }
  const extra = Object.keys(fields).filter((k) => !exempt.has(k.toLowerCase()) && !k.toLowerCase().startsWith('x-ignore-') && !named.has(k.toLowerCase()));
  if (extra.length) return denied(`Invalid according to Policy: Extra input fields: ${extra.join(', ')}`);
  return undefined;
}

function readAll(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function forward(target: URL, req: IncomingMessage, body: Buffer | undefined, res: ServerResponse) {
  const upstream = request(
    { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  upstream.on('error', () => {
    if (!res.headersSent) res.writeHead(502);
    res.end();
  });
  if (body) upstream.end(body);
  else req.pipe(upstream);
}

export function createS3PostGate(opts: GateOptions): Server {
  const target = new URL(opts.target);
  return createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://gate');
    const segments = url.pathname.split('/').filter(Boolean);
    const isPostObject = req.method === 'POST' && segments.length === 1 && /^multipart\/form-data/i.test(req.headers['content-type'] ?? '') && !url.search;
    if (!isPostObject) return forward(target, req, undefined, res);
    void (async () => {
      const body = await readAll(req);
      let verdict;
      try {
        const form = await parseMultipart(body, req.headers['content-type'] ?? '', { fileBytes: 1024 * 1024 * 1024, files: 1, fields: 50 });
        const fields = { ...form.fields };
        for (const name of form.fieldsAfterFile) delete fields[name];
        const file = form.files.find((f) => f.field === 'file');
        verdict = file ? checkPostPolicy(decodeURIComponent(segments[0]), fields, file.data.length, opts) : s3Error(400, 'InvalidArgument', 'POST requires exactly one file upload per request.');
      } catch {
        verdict = s3Error(400, 'MalformedPOSTRequest', 'The body of your POST request is not well-formed multipart/form-data.');
      }
      if (!verdict) return forward(target, req, body, res);
      res.writeHead(verdict.status, { 'Content-Type': 'application/xml' });
      res.end(verdict.body);
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
}
