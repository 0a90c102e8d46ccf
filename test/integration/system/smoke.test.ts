import { describe, expect, it } from 'vitest';
import { run } from '#support/run';
import { adminToken, useTwin } from '#support/twin';

/**
 * `npm run smoke` (scripts/smoke.ts), the check the pipeline runs against staging before it offers
 * prod (issue 43), run here as the pipeline runs it: its own process, over HTTP, against a twin,
 * with the receiver it starts itself.
 */
// A twin that runs its jobs by itself, as `npm start` does (the suite's default waits to be settled).
const t = useTwin({ jobPollMs: 50 });
const smoke = (env: Record<string, string>, args: string[]) =>
  run(process.execPath, ['--import', 'tsx', 'scripts/smoke.ts', ...args], { env: { ...process.env, ...env }, timeout: 110_000 });

describe('the smoke test of a stage', () => {
  it('passes its five checks against a working stage: health, the first call, a subscription, a manifest of 10 to completed, a verified manifest.processed', async () => {
    const ran = await smoke({ SMOKE_ADMIN_TOKEN: adminToken }, ['--api', t.twin.apiUrl, '--timeout-seconds', '100']);
    expect(ran.stderr).toBe('');
    expect(ran.status).toBe(0);
    const lines = ran.stdout.trim().split('\n');
    expect(lines.filter((l) => l.startsWith('ok  '))).toHaveLength(5);
    expect(lines.at(-1)).toBe(`smoke: 5 checks passed against ${t.twin.apiUrl}`);
    expect(ran.stdout).toMatch(/manifest\.processed delivered and verified with the subscription's secret \(webhook-id evt_/);
  });

  it('fails saying what it saw when the admin token is refused, and names its usage when the address is missing', async () => {
    const refused = await smoke({ SMOKE_ADMIN_TOKEN: 'not-the-admin-token-at-all' }, ['--api', t.twin.apiUrl]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/^FAIL POST \/v1\/admin\/accounts: expected 201, got 401/);
    const usage = await smoke({ SMOKE_ADMIN_TOKEN: adminToken }, []);
    expect(usage.status).toBe(2);
    expect(usage.stderr).toMatch(/^usage: SMOKE_ADMIN_TOKEN=/);
  });
});
