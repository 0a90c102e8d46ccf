import { spawnSync } from 'node:child_process';

/**
 * The machine tools the cloud checks use (cfn-lint, moto_server), found on the PATH. A missing
 * one skips its tests and says so, unless CI_REQUIRE_CLOUD_TOOLS=1 (as .ci/run sets it), where a
 * missing tool fails them.
 */
export const cloudToolsRequired = process.env.CI_REQUIRE_CLOUD_TOOLS === '1';

/** True when `command --version` runs (`--help` for those with no --version, such as moto_server). */
export function onPath(command: string): boolean {
  const run = spawnSync(command, [command === 'moto_server' ? '--help' : '--version'], { stdio: 'ignore' });
  return !run.error && run.status === 0;
}

/**
 * Whether a tool's tests run: true when it is on the PATH or required (then a missing tool fails
 * the test that needs it); false otherwise, after saying plainly on stderr what is skipped.
 */
export function toolAvailable(command: string, skipped: string): boolean {
  if (onPath(command)) return true;
  if (cloudToolsRequired) return true;
  console.warn(`SKIPPED: ${skipped}: \`${command}\` is not on the PATH (CI_REQUIRE_CLOUD_TOOLS=1 makes this a failure).`);
  return false;
}
