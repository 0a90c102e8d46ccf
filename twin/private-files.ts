import { chmodSync, existsSync, lstatSync, readdirSync } from 'node:fs';
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
