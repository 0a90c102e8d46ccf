/**
 * `npm run fuzz -- --seconds N`: the fuzz suite's generators (test/support/fuzz) against a twin
 * started here as the tests start theirs (an in-memory DynamoDB Local; each round a twin with a
 * table and a data directory of its own, a fresh world and a new seed), round after round for N
 * seconds. Prints each round, the requests tried per route and status, and every finding with the
 * seed and route that replay it:
 *
 *   npm run fuzz -- --seconds 600
 *   npm run fuzz -- --seed 20261123 --route OrdersCreate     (one round of one route)
 *   FUZZ_SEED=20261123 FUZZ_ROUTE=OrdersCreate npx vitest run test/integration/system/fuzz.test.ts
 *
 * Options: --seconds N (default 60), --seed S (first round's seed; default from the clock),
 * --runs R (requests per route per round, default 24), --route Id. Exits 1 when anything was found.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Finding, RouteStats } from '#support/fuzz/run';

// The service's logger reads these when it loads: set them first, load the service after.
process.env.LOG_LEVEL ??= 'SILENT';
process.env.POWERTOOLS_LOG_LEVEL ??= process.env.LOG_LEVEL;
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const { startDynamoLocal } = await import('#twin/dynamodb-local');
const { startTwin } = await import('#twin/twin');
const { fuzzRound } = await import('#support/fuzz/run');
const { formatFindings, formatReport } = await import('#support/fuzz/report');

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '60' },
    seed: { type: 'string' },
    runs: { type: 'string', default: '24' },
    route: { type: 'string' },
  },
});
const seconds = Number(values.seconds);
const runs = Number(values.runs);
const firstSeed = values.seed !== undefined ? Number(values.seed) : Date.now() % 1_000_000_000;
if (!(seconds > 0) || !(runs > 0) || !Number.isSafeInteger(firstSeed)) {
  console.error('usage: npm run fuzz -- [--seconds N] [--seed S] [--runs R] [--route Id]');
  process.exit(2);
}

const adminToken = 'fuzz-admin-token-0123456789abcdef';
const dynamo = await startDynamoLocal();

const started = Date.now();
const deadline = started + seconds * 1000;
const totals = new Map<string, RouteStats>();
const findings: { round: number; finding: Finding }[] = [];
let tried = 0;
let rounds = 0;
let stopping = false;
process.on('SIGINT', () => (stopping = true));

try {
  // A round takes every route once; seeds step by 1,000 so no two rounds share a route seed.
  for (let seed = firstSeed; !stopping && Date.now() < deadline; seed += 1000) {
    // Each round has a twin of its own (a table and data directory of its own), as each test file does.
    const dataDir = mkdtempSync(join(tmpdir(), 'despacho-fuzz-'));
    const twin = await startTwin({ port: 0, dataDir, tableName: `fuzz_${seed}`, dynamoEndpoint: dynamo.endpoint, adminToken, jobPollMs: 0 });
    const report = await fuzzRound({
      apiUrl: twin.apiUrl,
      rootUrl: twin.url,
      adminToken,
      jobs: twin.jobs,
      dynamoEndpoint: dynamo.endpoint,
      seed,
      perRoute: runs,
      route: values.route,
      deadline,
      label: `round ${rounds + 1}`,
    }).finally(async () => {
      await twin.stop();
      rmSync(dataDir, { recursive: true, force: true });
    });
    rounds++;
    tried += report.tried;
    for (const [id, s] of Object.entries(report.routes)) {
      const t = totals.get(id) ?? { tried: 0, ms: 0, valid: 0, validTaken: 0, statuses: {}, kinds: {} };
      t.tried += s.tried;
      t.ms += s.ms;
      t.valid += s.valid;
      t.validTaken += s.validTaken;
      for (const [k, n] of Object.entries(s.statuses)) t.statuses[k] = (t.statuses[k] ?? 0) + n;
      for (const [k, n] of Object.entries(s.kinds)) t.kinds[k] = (t.kinds[k] ?? 0) + n;
      totals.set(id, t);
    }
    for (const f of report.findings) findings.push({ round: seed, finding: f });
    console.log(formatReport(report, { perRoute: false }));
    if (values.route) break;
  }
} finally {
  await dynamo.stop();
}

const elapsed = (Date.now() - started) / 1000;
const statuses: Record<string, number> = {};
for (const s of totals.values()) for (const [k, n] of Object.entries(s.statuses)) statuses[k] = (statuses[k] ?? 0) + n;
console.log(`\nfuzz: ${tried} requests in ${rounds} rounds (seeds ${firstSeed} to ${firstSeed + (rounds - 1) * 1000}, ${runs} per route a round) over ${elapsed.toFixed(0)} s, ${findings.length} findings`);
console.log(`by status: ${Object.entries(statuses).map(([k, n]) => `${k} ${n}`).join(', ')}`);
console.log('per route (requests, then status:count):');
for (const [id, s] of [...totals.entries()].sort()) console.log(`  ${id.padEnd(32)} ${String(s.tried).padStart(6)}  ${Object.entries(s.statuses).map(([k, n]) => `${k}:${n}`).join(' ')}`);
if (findings.length) {
  console.log('\nfindings:');
  const byRound = new Map<number, Finding[]>();
  for (const { round, finding } of findings) byRound.set(round, [...(byRound.get(round) ?? []), finding]);
  for (const [round, list] of byRound) console.log(formatFindings(list, round));
}
process.exit(findings.length ? 1 : 0);
