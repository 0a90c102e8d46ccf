import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/** The twin run as `npm start` runs it, in its own process. */
export interface Started {
  child: ChildProcess;
  apiUrl: string;
  seconds: number;
  output: () => string;
}

/** Starts `bin/local.ts` on a free port with this data directory, and waits for its ready line. */
export function startService(dataDir: string, env: Record<string, string> = {}, readyMs = 60_000): Promise<Started> {
  const began = Date.now();
  // One process (`node --import tsx`, not the tsx CLI, which runs the service in a child): a
  // signal or a kill -9 reaches the service itself, and nothing is left behind.
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/local.ts'], {
    env: { ...process.env, PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'INFO', POWERTOOLS_LOG_LEVEL: 'INFO', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready in ${readyMs / 1000} s:\n${out}`)), readyMs);
    child.stdout!.on('data', () => {
      const m = /ready on (http:\/\/\S+\/api)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, apiUrl: m[1], seconds: (Date.now() - began) / 1000, output: () => out });
      }
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}:\n${out}`)));
  });
}

/** Java processes (DynamoDB Local) still serving this data directory. */
export function javaProcessesFor(dataDir: string): number[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(dataDir);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/**
 * A client of the running twin's DynamoDB Local: its port from the Java process's `-port`, and
 * `accessKeyId` (by default the data directory's access key, which holds the twin's database).
 */
export function twinDynamo(dataDir: string, accessKeyId = readFileSync(join(dataDir, 'dynamodb', 'access-key'), 'utf8').trim()): DynamoDBClient {
  const [java] = javaProcessesFor(dataDir);
  const port = /-port\0(\d+)/.exec(readFileSync(`/proc/${java}/cmdline`, 'utf8'))![1];
  return new DynamoDBClient({ endpoint: `http://127.0.0.1:${port}`, region: 'local', credentials: { accessKeyId, secretAccessKey: 'x' } });
}
