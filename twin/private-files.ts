import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Takes group and others' access off everything under `dir` (a data directory written before the
 * twin set its umask): folders 0700, files 0600 at most. Symbolic links are left as they are.
 */
export function closeToOthers(dir: string): void {
  if (!existsSync(dir)) return;
  const close = (path: string) => {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return;
    if ((stat.mode & 0o077) !== 0) chmodSync(path, stat.mode & 0o700);
    if (stat.isDirectory()) for (const name of readdirSync(path)) close(join(path, name));
  };
  close(dir);
}

/**
 * The twin's cursor key (lambdas/infra/cursors.ts), kept in `<dataDir>/cursor.key` (0600, made
 * once): a cursor the API answered before a restart still opens after it.
 */
export function cursorKeyOf(dataDir: string): string {
  const file = join(dataDir, 'cursor.key');
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    const key = randomBytes(32).toString('hex');
    try {
      writeFileSync(file, key + '\n', { mode: 0o600, flag: 'wx' });
      return key;
    } catch {
      // Made meanwhile by another process of the same data directory: its key.
      return readFileSync(file, 'utf8').trim();
    }
  }
}
