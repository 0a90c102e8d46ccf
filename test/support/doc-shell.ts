import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Lexer, type Tokens } from 'marked';
import { javaProcessesFor } from './service';

/**
 * Runs the shell blocks of a documentation page as a reader would, for the tests that hold a page
 * to what it says (test/docs/first-call.test.ts, test/docs/quickstart.test.ts): the twin's block
 * in its own process group until its ready line, the rest in one bash, in order.
 */
export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** The fenced code blocks of `page` (relative to the repository) whose info string is `info`, in order; from `heading` to the next heading when given. */
export function codeBlocks(page: string, info: string, heading?: string): string[] {
  const tokens = new Lexer().lex(readFileSync(join(repoRoot, page), 'utf8'));
  const start = heading === undefined ? -1 : tokens.findIndex((t) => t.type === 'heading' && (t as Tokens.Heading).text === heading);
  if (heading !== undefined && start < 0) throw new Error(`no "${heading}" heading in ${page}`);
  const blocks: string[] = [];
  for (const t of tokens.slice(start + 1)) {
    if (heading !== undefined && t.type === 'heading') break;
    // marked keeps the whole info string in `lang` ("sh quickstart").
    if (t.type === 'code' && ((t as Tokens.Code).lang ?? '').trim() === info) blocks.push((t as Tokens.Code).text);
  }
  return blocks;
}

/** The environment of a shell a reader would use: the test runner's own log settings left out. */
export function shellEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  for (const name of ['LOG_LEVEL', 'POWERTOOLS_LOG_LEVEL', 'DESPACHO_URL', 'DESPACHO_TOKEN', 'ADMIN_TOKEN', 'WEBHOOK_LOCAL_RECEIVERS']) if (!(name in extra)) delete env[name];
  return env;
}

/** Runs the block that starts the twin, as its own process group (as a terminal runs it), until its ready line. */
export function startTwinBlock(block: string, dataDir: string): { child: ChildProcess; ready: Promise<{ port: number }>; output: () => string } {
  const child = spawn('bash', ['-c', block], {
    cwd: repoRoot,
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

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    /* already gone */
  }
}

/** Ctrl-C to the twin's process group, as a terminal sends it; a kill if it does not stop; then its DynamoDB Local. */
export async function stopTwinBlock(child: ChildProcess, dataDir: string): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    killGroup(child.pid!, 'SIGINT');
    const timer = setTimeout(() => killGroup(child.pid!, 'SIGKILL'), 30_000);
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

/**
 * Runs `script` in one bash (`-e -o pipefail`: a failed step stops it) in its own process group,
 * so what it left running in the background (a receiver) ends with it. Past `timeoutMs` the group
 * is killed and the answer says so, with what the script printed until then.
 */
export function runScript(script: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<{ code: number | null; stdout: string; stderr: string; timedOut: boolean }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', script], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid!, 'SIGKILL');
    }, timeoutMs);
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.once('exit', (code) => {
      clearTimeout(timer);
      killGroup(child.pid!, 'SIGKILL');
      resolve({ code, stdout, stderr, timedOut });
    });
  });
}
