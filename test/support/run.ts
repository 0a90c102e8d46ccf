import { execFile } from 'node:child_process';

/** What a command did: its exit status (null when a signal ended it) and its output. */
export interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command without blocking the test's event loop. Never execFileSync/spawnSync in a test:
 * a worker blocked for a minute stops answering vitest's main process, which fails the whole run
 * with `Timeout calling "onTaskUpdate"` even when every test passed (docs/developers/testing.md).
 */
export function run(
  command: string,
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string; timeout?: number; /** Hears the standard output as it comes (it is answered whole at the end too). */ onStdout?: (chunk: string) => void } = {},
): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = execFile(command, args, { cwd: opts.cwd, env: opts.env ?? process.env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, timeout: opts.timeout ?? 120_000 }, (err, stdout, stderr) => {
      if (err && typeof err.code !== 'number' && err.signal == null) reject(err);
      else resolve({ status: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr });
    });
    if (opts.input !== undefined) child.stdin!.end(opts.input);
    if (opts.onStdout) child.stdout!.on('data', opts.onStdout);
  });
}

/** `run`, answering its standard output, or failing with its standard error when it did not exit 0. */
export async function runOk(command: string, args: string[], opts: Parameters<typeof run>[2] = {}): Promise<string> {
  const ran = await run(command, args, opts);
  if (ran.status !== 0) throw new Error(`${command} exited ${ran.status}: ${ran.stderr}`);
  return ran.stdout;
}
