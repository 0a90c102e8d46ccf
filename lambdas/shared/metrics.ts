import { Metrics } from '@aws-lambda-powertools/metrics';
import { metricNamespace, metrics as metricDefs, type MetricDef, type MetricName } from './metric-names';

/**
 * The business metrics the services emit (declared in metric-names.ts). In Lambda each call is one
 * CloudWatch embedded-metric-format line through Powertools Metrics, written at once (a single
 * metric), so nothing waits for a flush at the end of the invocation and nothing is lost when a
 * handler throws. Every call is also added to this process's tally, which the twin shows at
 * GET /api/v1/admin/metrics (in Lambda the tally is per container and nobody reads it).
 *
 * Counts are at least once: a step the queue or the state machine repeats counts again.
 */
export interface MetricSample {
  name: MetricName;
  unit: MetricDef['unit'];
  dimensions: Record<string, string>;
  /** Calls recorded. */
  samples: number;
  sum: number;
  min: number;
  max: number;
}

const tally = new Map<string, MetricSample>();
const startedAt = new Date().toISOString();

/** EMF only where CloudWatch reads the function's output; the twin and the tests keep the tally alone. */
const inLambda = () => Boolean(process.env.AWS_LAMBDA_FUNCTION_NAME);
let emitter: Metrics | undefined;

export interface MetricOptions {
  /** The value of the metric's breakdown dimension (`by`); one outside its list is sent as `other`. */
  by?: string;
  /** The route's catalog tag, for metrics whose group is `route`. */
  group?: string;
}

/** Records `value` (default 1) of a declared metric. Never throws: a metric must not fail the work. */
export function recordMetric(name: MetricName, value = 1, opts: MetricOptions = {}): void {
  try {
    const def: MetricDef = metricDefs[name];
    const dimensions: Record<string, string> = { stage: process.env.STAGE ?? 'local', group: def.group === 'route' ? (opts.group ?? 'other') : def.group };
    if (def.by) dimensions[def.by.dimension] = opts.by !== undefined && def.by.values.includes(opts.by) ? opts.by : 'other';
    add(name, def.unit, dimensions, value);
    if (inLambda()) emit(name, def, dimensions, value);
  } catch {
    // A metric is never worth a failed request.
  }
}

function add(name: MetricName, unit: MetricDef['unit'], dimensions: Record<string, string>, value: number) {
  const key = `${name}|${Object.entries(dimensions).map(([k, v]) => `${k}=${v}`).join(',')}`;
  const seen = tally.get(key);
  if (seen) {
    seen.samples += 1;
    seen.sum += value;
    seen.min = Math.min(seen.min, value);
    seen.max = Math.max(seen.max, value);
  } else {
    tally.set(key, { name, unit, dimensions, samples: 1, sum: value, min: value, max: value });
  }
}

function emit(name: MetricName, def: MetricDef, dimensions: Record<string, string>, value: number) {
  emitter ??= new Metrics({ namespace: metricNamespace, serviceName: 'despacho' });
  const one = emitter.singleMetric();
  // One dimension set (service, stage, group and the breakdown); addDimensions would add a second set.
  for (const [k, v] of Object.entries(dimensions)) one.addDimension(k, v);
  one.addMetric(name, def.unit as Parameters<Metrics['addMetric']>[1], value);
}

/** This process's tally since it started, in a stable order (name, then dimensions). */
export function metricsSnapshot(): { namespace: string; since: string; metrics: MetricSample[] } {
  const list = [...tally.values()].map((m) => ({ ...m, dimensions: { ...m.dimensions } }));
  list.sort((a, b) => a.name.localeCompare(b.name) || JSON.stringify(a.dimensions).localeCompare(JSON.stringify(b.dimensions)));
  return { namespace: metricNamespace, since: startedAt, metrics: list };
}
