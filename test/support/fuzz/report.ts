import type { Finding, RoundReport } from './run';

/** One line per finding, with what replays it: `FUZZ_SEED=<route seed - route index>`… is the round seed. */
export function formatFindings(findings: Finding[], roundSeed?: number): string {
  return findings
    .map((f) => `${f.route} #${f.index} (${f.kind}) ${f.problem}\n    replay: FUZZ_SEED=${roundSeed ?? '<round seed>'} FUZZ_ROUTE=${f.route} (request #${f.index}, route seed ${f.seed})\n    request: ${f.request}\n    answer: ${f.response}`)
    .join('\n');
}

export function formatReport(r: RoundReport, opts: { perRoute?: boolean } = {}): string {
  const lines = [`fuzz seed ${r.seed}: ${r.tried} requests over ${Object.keys(r.routes).length} routes in ${(r.ms / 1000).toFixed(1)} s, ${r.findings.length} findings`];
  const kinds: Record<string, number> = {};
  const statuses: Record<string, number> = {};
  for (const s of Object.values(r.routes)) {
    for (const [k, n] of Object.entries(s.kinds)) kinds[k] = (kinds[k] ?? 0) + n;
    for (const [k, n] of Object.entries(s.statuses)) statuses[k] = (statuses[k] ?? 0) + n;
  }
  lines.push(`  by kind: ${Object.entries(kinds).map(([k, n]) => `${k} ${n}`).join(', ')}`);
  lines.push(`  by status: ${Object.entries(statuses).map(([k, n]) => `${k} ${n}`).join(', ')}`);
  if (opts.perRoute !== false) {
    for (const [id, s] of Object.entries(r.routes)) lines.push(`  ${id.padEnd(32)} ${String(s.tried).padStart(5)} ${String(s.ms).padStart(6)} ms  ${Object.entries(s.statuses).map(([k, n]) => `${k}:${n}`).join(' ')}`);
  }
  if (r.findings.length) lines.push(formatFindings(r.findings, r.seed));
  return lines.join('\n');
}
