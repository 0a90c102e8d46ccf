import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { Webhook } from 'standardwebhooks';
import { run } from '#bin/cli';
import { domainEvent } from '#infra/events';
import { fanOut } from '#services/webhooks/webhooks';
import { useTwin } from '#support/twin';
import { useReceiver, type Received } from '#support/receiver';
import { pdf } from '#support/files';

const t = useTwin();
const receiver = useReceiver();
const dir = mkdtempSync(join(tmpdir(), 'despacho-listen-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeEach(() => receiver.clear());

const root = join(import.meta.dirname, '..', '..', '..');

async function uploadDoc(token: string) {
  const res = await t.call('POST', '/v1/transport/documents/upload', { token, body: { document_type: 'awb', file_base64: pdf(String(Math.random())).toString('base64'), filename: 'a.pdf' } });
  expect(res.status).toBe(201);
  return res.body.data as { id: number };
}

/** Text written to a stream, with a wait for a line that matches. */
function lines() {
  const l = {
    text: '',
    waiters: [] as (() => void)[],
    write(chunk: string | Buffer) {
      l.text += String(chunk);
      for (const wake of l.waiters.splice(0)) wake();
      return true;
    },
    async match(re: RegExp, timeoutMs = 20_000): Promise<RegExpMatchArray> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const m = l.text.match(re);
        if (m) return m;
        if (Date.now() > deadline) throw new Error(`no line matched ${re}; got:\n${l.text}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
          l.waiters.push(() => (clearTimeout(timer), resolve()));
        });
      }
    },
  };
  return l;
}

function verifies(r: Received, secret: string): boolean {
  const ts = String(r.headers['x-service-timestamp']);
  return r.headers['x-service-signature'] === 'sha256=' + createHmac('sha256', secret).update(`${ts}.${r.body}`).digest('hex');
}

/** `npm run cli -- listen ...` as a process of its own, stopped with Ctrl-C (SIGINT). */
function cli(args: string[], token: string): { child: ChildProcess; out: ReturnType<typeof lines> } {
  const out = lines();
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/cli.ts', ...args], {
    cwd: root,
    env: { ...process.env, DESPACHO_URL: t.twin.apiUrl, DESPACHO_TOKEN: token, DESPACHO_CONFIG_DIR: dir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (c) => out.write(c));
  child.stderr!.on('data', (c) => out.write(c));
  return { child, out };
}

async function interrupt(child: ChildProcess): Promise<number | null> {
  const exited = once(child, 'exit');
  child.kill('SIGINT');
  const [code] = await exited;
  return code as number | null;
}

/** The listen secret line, as the CLI prints it. */
const secretLine = /Webhook signing secret \(this machine and account, the same on every run; --print-secret prints it alone\): (whsec_\S+)/;

function headersOf(r: Received): Record<string, string> {
  return Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, String(v)]));
}

describe('npm run cli -- listen', () => {
  it('forwards new events signed with the machine secret, stops on Ctrl-C, and goes on from there with the same secret after a restart', async () => {
    const partner = await t.account('Listener');
    const before = await uploadDoc(partner.token);
    await t.settle();
    const state = join(dir, 'restart.json');
    const args = ['listen', '--forward-to', receiver.url, '--state', state, '--interval', '300'];

    const first = cli(args, partner.token);
    const secret = (await first.out.match(secretLine))[1];
    expect(first.out.text.match(/whsec_/g)).toHaveLength(1);
    const docs = [await uploadDoc(partner.token), await uploadDoc(partner.token)];
    await t.settle();
    await receiver.until(2);
    await first.out.match(/(document\.uploaded.*-> 200[^\n]*\n[^]*){2}/);
    expect(await interrupt(first.child)).toBe(0);
    expect(first.out.text).toMatch(/Stopped\./);
    expect(first.out.text).not.toContain(partner.token);
    const bodies = receiver.received.map((r) => JSON.parse(r.body));
    expect(bodies.map((b) => b.data.id).sort()).toEqual(docs.map((d) => d.id).sort());
    expect(bodies.map((b) => b.data.id)).not.toContain(before.id);
    for (const r of receiver.received) {
      expect(verifies(r, secret)).toBe(true);
      expect(new Webhook(secret).verify(r.body, headersOf(r))).toMatchObject({ type: 'document.uploaded', id: r.headers['webhook-id'] });
      expect(r.headers).toMatchObject({ 'x-service-event': 'document.uploaded', 'content-type': 'application/json' });
    }
    // The feed's envelope, byte for byte.
    const feed = (await t.call('GET', '/v1/events?order=asc', { token: partner.token })).body.data.map((e: unknown) => JSON.stringify(e));
    for (const r of receiver.received) expect(feed).toContain(r.body);

    // While stopped, one more event; the restart forwards it and nothing it forwarded before.
    const later = await uploadDoc(partner.token);
    await t.settle();
    receiver.clear();
    const second = cli(args, partner.token);
    const secret2 = (await second.out.match(secretLine))[1];
    expect(secret2).toBe(secret);
    await receiver.until(1);
    await second.out.match(/document\.uploaded.*-> 200/);
    expect(await interrupt(second.child)).toBe(0);
    expect(receiver.received.map((r) => JSON.parse(r.body).data.id)).toEqual([later.id]);
    expect(verifies(receiver.received[0], secret)).toBe(true);
    expect(new Webhook(secret).verify(receiver.received[0].body, headersOf(receiver.received[0]))).toMatchObject({ id: receiver.received[0].headers['webhook-id'] });
    expect(statSync(join(dir, 'listen-secrets.json')).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(state, 'utf8'))).toMatchObject({ version: 1, deliveries: 3 });
  }, 60_000);

  it('forwards only the named events, and prints the local status of each', async () => {
    const partner = await t.account('Listener Filter');
    const stop = new AbortController();
    const out = lines();
    receiver.status = () => 503;
    const running = run(['listen', '--url', t.twin.apiUrl, '--token', partner.token, '--forward-to', receiver.url, '--events', 'document.downloaded', '--state', join(dir, 'filter.json'), '--interval', '300'], {
      stdout: out,
      stderr: out,
      env: { DESPACHO_CONFIG_DIR: dir },
      signal: stop.signal,
    });
    await out.match(secretLine);
    const doc = await uploadDoc(partner.token);
    expect((await t.call('GET', `/v1/transport/documents/${doc.id}/download`, { token: partner.token })).status).toBeLessThan(400);
    await t.settle();
    await receiver.until(1);
    await out.match(/document\.downloaded\s+evt_\S+\s+-> 503/);
    stop.abort();
    expect(await running).toBe(0);
    expect(receiver.received.map((r) => JSON.parse(r.body).type)).toEqual(['document.downloaded']);
  }, 30_000);

  it('forwards an event the feed shows late, behind one it already forwarded, and each event once', async () => {
    const partner = await t.account('Listener Late');
    const stop = new AbortController();
    const out = lines();
    const running = run(['listen', '--url', t.twin.apiUrl, '--token', partner.token, '--forward-to', receiver.url, '--state', join(dir, 'late.json'), '--interval', '300'], {
      stdout: out,
      stderr: out,
      env: { DESPACHO_CONFIG_DIR: dir },
      signal: stop.signal,
    });
    await out.match(secretLine);
    await uploadDoc(partner.token);
    await t.settle();
    await receiver.until(1);
    const first = JSON.parse(receiver.received[0].body) as { created_at: string };
    // An event that happened 5 s before the one forwarded, read off the bus only now (a fan-out retry).
    const late = { ...domainEvent('document.uploaded', partner.accountId, { late: true }), created_at: new Date(Date.parse(first.created_at) - 5000).toISOString() };
    await fanOut(late);
    await receiver.until(2);
    expect(JSON.parse(receiver.received[1].body)).toMatchObject({ id: late.id, data: { late: true } });
    // Later polls read the same window again and forward nothing twice.
    const polls = out.text.length;
    await uploadDoc(partner.token);
    await t.settle();
    await receiver.until(3);
    stop.abort();
    expect(await running).toBe(0);
    expect(out.text.length).toBeGreaterThan(polls);
    const ids = receiver.received.map((r) => JSON.parse(r.body).id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(3);
  }, 30_000);

  it('says what is wrong with bad options, and stops at once on a refused token', async () => {
    const partner = await t.account('Listener Bad');
    const cases: [string[], RegExp][] = [
      [['listen'], /needs --forward-to/],
      [['listen', '--forward-to', 'not a url'], /--forward-to must be a URL/],
      [['listen', '--forward-to', 'ftp://localhost/x'], /http or https/],
      [['listen', '--forward-to', receiver.url, '--events', 'order.exploded'], /Unknown event order\.exploded/],
      [['listen', '--forward-to', receiver.url, '--interval', 'soon'], /--interval/],
    ];
    for (const [args, message] of cases) {
      const out = lines();
      const code = await run([...args, '--url', t.twin.apiUrl, '--token', partner.token, '--state', join(dir, 'bad.json')], { stdout: out, stderr: out, env: { DESPACHO_CONFIG_DIR: dir } });
      expect(code, args.join(' ')).toBe(2);
      expect(out.text).toMatch(message);
    }
    const out = lines();
    const code = await run(['listen', '--forward-to', receiver.url, '--url', t.twin.apiUrl, '--token', 'dsp_not-a-token-at-all-0000000000', '--state', join(dir, 'refused.json')], { stdout: out, stderr: out, env: { DESPACHO_CONFIG_DIR: dir } });
    expect(code).toBe(1);
    expect(out.text).toMatch(/HTTP 401/);
  });

  it('prints only the secret with --print-secret, the one listen signs with, and nothing else', async () => {
    const partner = await t.account('Listener Print');
    const printed = lines();
    const quiet = lines();
    const env = { DESPACHO_CONFIG_DIR: dir };
    expect(await run(['listen', '--print-secret', '--url', t.twin.apiUrl, '--token', partner.token], { stdout: printed, stderr: quiet, env })).toBe(0);
    expect(printed.text).toMatch(/^whsec_[A-Za-z0-9+/]{43}=\n$/);
    expect(quiet.text).toBe('');
    const again = lines();
    expect(await run(['listen', '--print-secret', '--url', t.twin.apiUrl, '--token', partner.token], { stdout: again, stderr: again, env })).toBe(0);
    expect(again.text).toBe(printed.text);
    const other = lines();
    expect(await run(['listen', '--print-secret', '--url', t.twin.apiUrl, '--token', (await t.account('Listener Print Other')).token], { stdout: other, stderr: other, env })).toBe(0);
    expect(other.text).not.toBe(printed.text);

    const stop = new AbortController();
    const out = lines();
    const running = run(['listen', '--url', t.twin.apiUrl, '--token', partner.token, '--forward-to', receiver.url, '--state', join(dir, 'print.json'), '--interval', '300'], { stdout: out, stderr: out, env, signal: stop.signal });
    expect((await out.match(secretLine))[1]).toBe(printed.text.trim());
    await uploadDoc(partner.token);
    await t.settle();
    await receiver.until(1);
    stop.abort();
    expect(await running).toBe(0);
    expect(new Webhook(printed.text.trim()).verify(receiver.received[0].body, headersOf(receiver.received[0]))).toMatchObject({ type: 'document.uploaded' });
  }, 30_000);

  it('retries a forward the local URL failed, with the same event and delivery number, until it is taken', async () => {
    const partner = await t.account('Listener Retry');
    const answers = [503, 500];
    receiver.status = () => answers.shift() ?? 200;
    const stop = new AbortController();
    const out = lines();
    const running = run(
      ['listen', '--url', t.twin.apiUrl, '--token', partner.token, '--forward-to', receiver.url, '--state', join(dir, 'retry.json'), '--interval', '200', '--retry-delays', '300,300,300'],
      { stdout: out, stderr: out, env: { DESPACHO_CONFIG_DIR: dir }, signal: stop.signal },
    );
    const secret = (await out.match(secretLine))[1];
    await uploadDoc(partner.token);
    await t.settle();
    await receiver.until(3);
    await out.match(/document\.uploaded\s+evt_\S+\s+-> 200/);
    stop.abort();
    expect(await running).toBe(0);
    expect(out.text).toMatch(/-> 503 \(\d+ ms\); attempt 2 of 4 in 0\.3 s/);
    expect(out.text).toMatch(/-> 500 \(\d+ ms\); attempt 3 of 4 in 0\.3 s/);
    expect(receiver.received).toHaveLength(3);
    const ids = new Set(receiver.received.map((r) => r.headers['webhook-id']));
    const deliveries = new Set(receiver.received.map((r) => r.headers['x-service-delivery']));
    expect([ids.size, deliveries.size]).toEqual([1, 1]);
    for (const r of receiver.received) expect(new Webhook(secret).verify(r.body, headersOf(r))).toMatchObject({ type: 'document.uploaded' });
  }, 30_000);

  it('keeps a pending retry across a restart and sends it then', async () => {
    const partner = await t.account('Listener Retry Restart');
    receiver.status = () => 503;
    const args = ['listen', '--url', t.twin.apiUrl, '--token', partner.token, '--forward-to', receiver.url, '--state', join(dir, 'retry-restart.json'), '--interval', '200', '--retry-delays', '500'];
    const env = { DESPACHO_CONFIG_DIR: dir };
    const stop = new AbortController();
    const out = lines();
    const running = run(args, { stdout: out, stderr: out, env, signal: stop.signal });
    await out.match(secretLine);
    await uploadDoc(partner.token);
    await t.settle();
    await out.match(/-> 503 \(\d+ ms\); attempt 2 of 2 in 0\.5 s/);
    stop.abort();
    expect(await running).toBe(0);
    expect(out.text).toMatch(/Stopped\. 1 failed forward still to retry\./);

    receiver.status = () => 200;
    const again = new AbortController();
    const out2 = lines();
    const rerun = run(args, { stdout: out2, stderr: out2, env, signal: again.signal });
    await receiver.until(2);
    await out2.match(/document\.uploaded\s+evt_\S+\s+-> 200/);
    again.abort();
    expect(await rerun).toBe(0);
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(JSON.parse(readFileSync(join(dir, 'retry-restart.json'), 'utf8')).retries).toEqual({});
  }, 30_000);

  it('gives a forward up when the retries run out, saying how to send it again', async () => {
    const partner = await t.account('Listener Give Up');
    receiver.status = () => 503;
    const stop = new AbortController();
    const out = lines();
    const running = run(
      ['listen', '--url', t.twin.apiUrl, '--token', partner.token, '--forward-to', receiver.url, '--state', join(dir, 'give-up.json'), '--interval', '200', '--retry-delays', '200'],
      { stdout: out, stderr: out, env: { DESPACHO_CONFIG_DIR: dir }, signal: stop.signal },
    );
    await out.match(secretLine);
    await uploadDoc(partner.token);
    await t.settle();
    const [, id] = await out.match(/-> 503 \(\d+ ms\); gave up after 2 attempts \(send it again: events resend (evt_\S+) --forward-to/);
    stop.abort();
    expect(await running).toBe(0);
    expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([id, id]);
  }, 30_000);
});

describe('npm run cli -- events resend and trigger', () => {
  it("resend sends a past event of the feed again, byte for byte, signed with the machine's listen secret", async () => {
    const partner = await t.account('Resender');
    await uploadDoc(partner.token);
    await t.settle();
    const [event] = (await t.call('GET', '/v1/events?order=desc&limit=1', { token: partner.token })).body.data;
    const env = { DESPACHO_CONFIG_DIR: dir };
    const secret = lines();
    await run(['listen', '--print-secret', '--url', t.twin.apiUrl, '--token', partner.token], { stdout: secret, stderr: secret, env });
    const out = lines();
    expect(await run(['events', 'resend', event.id, '--forward-to', receiver.url, '--url', t.twin.apiUrl, '--token', partner.token], { stdout: out, stderr: out, env })).toBe(0);
    expect(out.text).toMatch(new RegExp(`document\\.uploaded\\s+${event.id}\\s+-> 200`));
    expect(receiver.received).toHaveLength(1);
    const [got] = receiver.received;
    expect(got.body).toBe(JSON.stringify(event));
    expect(new Webhook(secret.text.trim()).verify(got.body, headersOf(got))).toEqual(event);
    expect(verifies(got, secret.text.trim())).toBe(true);

    const missing = lines();
    expect(await run(['events', 'resend', 'evt_nothing_here', '--forward-to', receiver.url, '--url', t.twin.apiUrl, '--token', partner.token], { stdout: missing, stderr: missing, env })).toBe(1);
    expect(missing.text).toMatch(/No event evt_nothing_here in this account's feed/);
    const bad = lines();
    expect(await run(['events', 'resend', 'nope', '--forward-to', receiver.url, '--url', t.twin.apiUrl, '--token', partner.token], { stdout: bad, stderr: bad, env })).toBe(2);
    expect(bad.text).toMatch(/evt_/);
  }, 30_000);

  it("trigger sends a fresh sample of the event type, signed with the machine's listen secret", async () => {
    const partner = await t.account('Trigger');
    const env = { DESPACHO_CONFIG_DIR: dir };
    await uploadDoc(partner.token);
    await t.settle();
    const [newest] = (await t.call('GET', '/v1/events?order=desc&limit=1&types=document.uploaded', { token: partner.token })).body.data;
    const documented = (await t.call('GET', '/openapi.json')).body.webhooks['document.uploaded'].post.requestBody.content['application/json'].example;
    const secret = lines();
    await run(['listen', '--print-secret', '--url', t.twin.apiUrl, '--token', partner.token], { stdout: secret, stderr: secret, env });
    const out = lines();
    expect(await run(['trigger', 'document.uploaded', '--forward-to', receiver.url, '--url', t.twin.apiUrl, '--token', partner.token], { stdout: out, stderr: out, env })).toBe(0);
    expect(out.text).toMatch(/document\.uploaded\s+evt_sample_\w+\s+-> 200/);
    const [got] = receiver.received;
    const envelope = new Webhook(secret.text.trim()).verify(got.body, headersOf(got)) as { id: string; type: string; created_at: string; data: unknown };
    expect(envelope).toMatchObject({ id: expect.stringMatching(/^evt_sample_/), type: 'document.uploaded' });
    expect(envelope.id).not.toBe(newest.id);
    expect(Date.now() - Date.parse(envelope.created_at)).toBeLessThan(60_000);
    // The example openapi.json shows for the event, or (for an event without one) the newest of its kind.
    expect(envelope.data).toEqual(documented?.data ?? newest.data);
    expect(verifies(got, secret.text.trim())).toBe(true);

    const unknown = lines();
    expect(await run(['trigger', 'order.exploded', '--forward-to', receiver.url, '--url', t.twin.apiUrl, '--token', partner.token], { stdout: unknown, stderr: unknown, env })).toBe(2);
    expect(unknown.text).toMatch(/Unknown event order\.exploded/);
  }, 30_000);
});
