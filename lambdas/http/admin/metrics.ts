import { route } from '../kit/route';
import { ok, type Reply } from '../kit/reply';
import { config } from '#shared/config';
import { metricsSnapshot, type MetricSample } from '#shared/metrics';
import { AdminMetrics } from '#catalog/admin';

/**
 * GET /v1/admin/metrics (admin, the local twin only): what this process counted since it started,
 * fed by the same calls that send the metrics to CloudWatch in AWS (lambdas/shared/metrics.ts).
 * `?format=prometheus` answers Prometheus' text format for a local scraper.
 */
export const handler = route(AdminMetrics.schemas, async ({ query }): Promise<Reply> => {
  const snapshot = metricsSnapshot();
  if (query.format === 'prometheus') return { status: 200, raw: { contentType: 'text/plain; version=0.0.4; charset=utf-8', body: prometheusText(snapshot.metrics) } };
  return ok({
    namespace: snapshot.namespace,
    stage: config.stage(),
    since: snapshot.since,
    metrics: snapshot.metrics.map((m) => ({ name: m.name, unit: m.unit, dimensions: m.dimensions, samples: m.samples, sum: m.sum, min: m.min, max: m.max })),
  });
});

/** `ManifestsSubmitted` -> `despacho_manifests_submitted`. */
const snake = (name: string) => 'despacho_' + name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
const labels = (d: Record<string, string>) => Object.entries(d).map(([k, v]) => `${k.replace(/[^a-zA-Z0-9_]/g, '_')}="${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`).join(',');

/** Counts as counters (`_total`); durations and rates as summaries without quantiles (`_sum`, `_count`). */
function prometheusText(metrics: MetricSample[]): string {
  const lines: string[] = [];
  let last = '';
  for (const m of metrics) {
    const base = snake(m.name);
    const counter = m.unit === 'Count';
    if (m.name !== last) {
      lines.push(`# TYPE ${counter ? `${base}_total counter` : `${base} summary`}`);
      last = m.name;
    }
    if (counter) lines.push(`${base}_total{${labels(m.dimensions)}} ${m.sum}`);
    else lines.push(`${base}_sum{${labels(m.dimensions)}} ${m.sum}`, `${base}_count{${labels(m.dimensions)}} ${m.samples}`);
  }
  return lines.join('\n') + '\n';
}
