import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Lexer, type Tokens } from 'marked';
import { describe, expect, it } from 'vitest';
import { javaProcessesFor } from '#support/service';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** The fenced `sh` blocks of the README's "First call" section, in order. */
function firstCallBlocks(): string[] {
  const tokens = new Lexer().lex(readFileSync(join(root, 'README.md'), 'utf8'));
  const start = tokens.findIndex((t) => t.type === 'heading' && (t as Tokens.Heading).text === 'First call');
  expect(start, 'a "First call" heading in README.md').toBeGreaterThanOrEqual(0);
  const blocks: string[] = [];
  for (const t of tokens.slice(start + 1)) {
    if (t.type === 'heading') break;
    if (t.type === 'code' && (t as Tokens.Code).lang === 'sh') blocks.push((t as Tokens.Code).text);
  }
  return blocks;
}

/** The environment of a shell a reader would use: the test runner's own log settings left out. */
function shellEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  for (const name of ['LOG_LEVEL', 'POWERTOOLS_LOG_LEVEL', 'DESPACHO_URL', 'DESPACHO_TOKEN', 'ADMIN_TOKEN']) if (!(name in extra)) delete env[name];
  return env;
}

/** Runs the block that starts the twin, as its own process group (as a terminal runs it), until its ready line. */
function startTwin(block: string, dataDir: string): { child: ChildProcess; ready: Promise<{ port: number }>; output: () => string } {
  const child = spawn('bash', ['-c', block], {
    cwd: root,
    env: shellEnv({ PORT: '0', DATA_DIR: dataDir }),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  const ready = new Promise<{ port: number }>((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d;
      const m = /Despacho is ready on http:\/\/[^:/\s]+:(\d+)\/api/.exec(out);
      if (m) resolve({ port: Number(m[1]) });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (d: Buffer) => (out += d));
    child.once('exit', (code) => reject(new Error(`the twin exited (${code}) before it was ready:\n${out}`)));
  });
  return { child, ready, output: () => out };
}

/** Ctrl-C to the twin's process group, as a terminal sends it; a kill if it does not stop. */
async function stop(child: ChildProcess, dataDir: string): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    process.kill(-child.pid!, 'SIGINT');
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }, 30_000);
    await exited;
    clearTimeout(timer);
  }
  for (const pid of javaProcessesFor(dataDir)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
}

function run(script: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', script], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe("the README's first call", () => {
  it('runs against the twin as written and its last call answers 200 with the new account', async () => {
    const [startBlock, ...rest] = firstCallBlocks();
    expect(startBlock, 'the first block starts the twin').toMatch(/^ADMIN_TOKEN=\S+ npm start$/m);
    expect(rest.length, 'a block for the other shell').toBeGreaterThan(0);
    const accountName = /accounts create --name "([^"]+)"/.exec(rest.join('\n'))?.[1];
    expect(accountName, 'the block creates an account by name').toBeTruthy();

    const dataDir = mkdtempSync(join(tmpdir(), 'despacho-first-call-'));
    const twin = startTwin(startBlock!, dataDir);
    try {
      const { port } = await twin.ready;
      // The one change: the README's port (3000) is the free port the twin took (PORT=0).
      const script = rest.join('\n').replace(/\b(?:localhost|127\.0\.0\.1):3000\b/g, `localhost:${port}`);
      const result = await run(script, shellEnv({}));
      expect(result.code, `${result.stdout}\n${result.stderr}\n${twin.output()}`).toBe(0);

      const lines = result.stdout.trimEnd().split('\n');
      expect(lines.at(-1)).toBe('HTTP 200');
      const body = JSON.parse(lines.at(-2)!);
      expect(body).toMatchObject({ success: true, data: { account: { name: accountName, kind: 'partner' }, token: { role: 'partner' } } });
    } finally {
      await stop(twin.child, dataDir);
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 180_000);
});
