/**
 * `npm run bench:edge`: what 1,000 requests of one token cost behind the API's edge, on the cloud
 * lane (the synthesized dev stage's templates and bundles on moto_server and DynamoDB Local, with
 * API Gateway's identity source and authorizer cache played as the template sets them).
 *
 * One token calls GET /v1/me at its rate limit (60 a minute, the lane's clock moved a minute after
 * each 60 calls, so every answer is a 200; paced under the stage's throttle), then 100 calls come
 * without a token. Prints the
 * authorizer invocations, the table operations by kind and the route function's invocations, per
 * 1,000 requests. BENCH_ASSEMBLY=<dir> reuses a synthesized assembly (`cdk synth -o <dir>`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedAdminToken } from '#services/auth/accounts';
import { startCloudLane, synthesize } from '#twin/cloud/lane';

const requests = 1000;
const perMinute = 60;
const token = 'bench-edge-token-000000000000001';
/** Under the dev stage's throttle (50 a second), so every request reaches the authorizer's side, as a partner's would. */
const pace = () => new Promise((r) => setTimeout(r, 30));

async function main() {
  const given = process.env.BENCH_ASSEMBLY;
  const assemblyDir = given ?? mkdtempSync(join(tmpdir(), 'despacho-bench-edge-'));
  if (!given) await synthesize('dev', assemblyDir);
  const lane = await startCloudLane({ assemblyDir, autoRun: false, logLevel: 'SILENT', countTableOperations: true });
  try {
    await seedAdminToken(token, new Date().toISOString());
    const call = (auth: boolean) => fetch(`${lane.apiUrl}/v1/me`, { headers: auth ? { authorization: `Bearer ${token}` } : {} });
    const before = { auth: lane.authorizerInvocations(), ops: lane.tableOperations() };
    const statuses = new Map<number, number>();
    for (let i = 0; i < requests; i++) {
      if (i > 0 && i % perMinute === 0) await lane.advanceClock(60_000);
      const res = await call(true);
      await res.arrayBuffer();
      await pace();
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    }
    const after = { auth: lane.authorizerInvocations(), ops: lane.tableOperations() };
    const ops = [...after.ops].map(([k, n]) => [k, n - (before.ops.get(k) ?? 0)] as const).filter(([, n]) => n > 0);
    const total = ops.reduce((s, [, n]) => s + n, 0);
    console.log(`bench:edge ${new Date().toISOString()} on the cloud lane (dev stage templates)`);
    console.log(`${requests} requests of one token to GET /api/v1/me, ${perMinute} a minute: statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
    console.log(`  authorizer invocations: ${after.auth - before.auth}`);
    console.log(`  table operations: ${total} (${ops.map(([k, n]) => `${k} ${n}`).join(', ')})`);

    const none = { auth: lane.authorizerInvocations(), ops: lane.tableOperations() };
    const noTokenStatuses = new Map<number, number>();
    for (let i = 0; i < 100; i++) {
      const res = await call(false);
      await res.arrayBuffer();
      await pace();
      noTokenStatuses.set(res.status, (noTokenStatuses.get(res.status) ?? 0) + 1);
    }
    const noneOps = [...lane.tableOperations()].reduce((s, [k, n]) => s + n - (none.ops.get(k) ?? 0), 0);
    console.log(`100 requests without a token: statuses ${JSON.stringify(Object.fromEntries(noTokenStatuses))}, authorizer invocations ${lane.authorizerInvocations() - none.auth}, table operations ${noneOps}`);
  } finally {
    await lane.stop();
    if (!given) rmSync(assemblyDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
