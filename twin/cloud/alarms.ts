import type { Functions, InvocationSample } from './sandbox';
import type { Deployment } from './template';

/*
 * The lane's CloudWatch, as far as a rollout needs it (twin/cloud/rollout.ts): the template's
 * alarms evaluated on the metrics the lane itself can count. Those are AWS/Lambda's Invocations,
 * Errors, Throttles (never, here) and Duration of each function, by `FunctionName`, with
 * `Resource` (`<name>:live`, every call here goes through the alias) and `ExecutedVersion`, from
 * every call the lane's Lambda made (twin/cloud/sandbox.ts), on the lane's clock. A composite alarm
 * is its rule over the states of the alarms it names. Anything else (SQS, API Gateway, DynamoDB,
 * Step Functions and custom metrics, metric math) is not counted here: such an alarm is
 * INSUFFICIENT_DATA, which CodeDeploy does not take for an alarm, and `notEvaluated` names it.
 */

export type AlarmState = 'OK' | 'ALARM' | 'INSUFFICIENT_DATA';

interface MetricAlarm {
  kind: 'metric';
  name: string;
  namespace?: string;
  metricName?: string;
  dimensions: Record<string, string>;
  statistic?: string;
  extendedStatistic?: string;
  periodSeconds: number;
  evaluationPeriods: number;
  datapointsToAlarm: number;
  threshold: number;
  comparison: string;
  treatMissingData: string;
  math: boolean;
}

interface CompositeAlarm {
  kind: 'composite';
  name: string;
  rule: string;
}

type Alarm = MetricAlarm | CompositeAlarm;

const laneMetrics = new Set(['Invocations', 'Errors', 'Throttles', 'Duration']);

export class Alarms {
  private readonly byName = new Map<string, Alarm>();
  /** The alarms asked about that the lane cannot evaluate (their metric is not one it counts). */
  readonly notEvaluated = new Set<string>();

  constructor(
    d: Deployment,
    private readonly fns: Functions,
  ) {
    for (const r of d.resources('AWS::CloudWatch::Alarm')) {
      const p = d.properties(r);
      const name = String(p.AlarmName ?? d.physicalId(r));
      this.byName.set(name, {
        kind: 'metric',
        name,
        namespace: p.Namespace,
        metricName: p.MetricName,
        dimensions: Object.fromEntries(((p.Dimensions ?? []) as { Name: string; Value: unknown }[]).map((x) => [x.Name, String(x.Value)])),
        statistic: p.Statistic,
        extendedStatistic: p.ExtendedStatistic,
        periodSeconds: Number(p.Period ?? 60),
        evaluationPeriods: Number(p.EvaluationPeriods ?? 1),
        datapointsToAlarm: Number(p.DatapointsToAlarm ?? p.EvaluationPeriods ?? 1),
        threshold: Number(p.Threshold),
        comparison: String(p.ComparisonOperator),
        treatMissingData: String(p.TreatMissingData ?? 'missing'),
        math: Array.isArray(p.Metrics),
      });
    }
    for (const r of d.resources('AWS::CloudWatch::CompositeAlarm')) {
      const p = d.properties(r);
      const name = String(p.AlarmName ?? d.physicalId(r));
      this.byName.set(name, { kind: 'composite', name, rule: String(p.AlarmRule) });
    }
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  /** The state of alarm `name` at the lane's time `now` (ms). */
  state(name: string, now = this.fns.now()): AlarmState {
    const alarm = this.byName.get(name);
    if (!alarm) {
      this.notEvaluated.add(name);
      return 'INSUFFICIENT_DATA';
    }
    return alarm.kind === 'composite' ? this.composite(alarm, now) : this.metric(alarm, now);
  }

  private metric(a: MetricAlarm, now: number): AlarmState {
    const fn = a.dimensions.FunctionName;
    const statistic = a.statistic ?? a.extendedStatistic;
    if (a.math || a.namespace !== 'AWS/Lambda' || !a.metricName || !laneMetrics.has(a.metricName) || !fn || !statistic || !this.fns.specs.has(fn)) {
      this.notEvaluated.add(a.name);
      return 'INSUFFICIENT_DATA';
    }
    const resource = a.dimensions.Resource;
    const version = a.dimensions.ExecutedVersion;
    // Every call here is through the `live` alias: a Resource of another qualifier has no calls.
    const samples = this.fns.invocations(fn).filter((s) => (resource === undefined || resource === `${fn}:live`) && (version === undefined || s.version === version));
    const periodMs = a.periodSeconds * 1000;
    // CloudWatch reads a period once it has closed, and an alarm keeps that state until the next
    // evaluation: the lane reads the periods up to the one before `now`'s, and also up to the open
    // one, so it does not wait for a period to close. An error stays visible one to two periods.
    const open = Math.floor(now / periodMs) * periodMs;
    const states = [open - periodMs, open].map((newest) => this.window(a, samples, newest, periodMs));
    if (states.includes('ALARM')) return 'ALARM';
    return states.includes('OK') ? 'OK' : 'INSUFFICIENT_DATA';
  }

  /** The alarm's state on its last `evaluationPeriods` periods, the newest starting at `newest`. */
  private window(a: MetricAlarm, samples: InvocationSample[], newest: number, periodMs: number): AlarmState {
    let breaching = 0;
    let missing = 0;
    for (let i = 0; i < a.evaluationPeriods; i++) {
      const from = newest - i * periodMs;
      const value = datapoint(a.metricName!, a.statistic ?? a.extendedStatistic!, samples.filter((s) => s.at >= from && s.at < from + periodMs));
      if (value === undefined) missing++;
      else if (compare(value, a.comparison, a.threshold)) breaching++;
    }
    if (missing === a.evaluationPeriods) {
      if (a.treatMissingData === 'breaching') return 'ALARM';
      return a.treatMissingData === 'notBreaching' || a.treatMissingData === 'ignore' ? 'OK' : 'INSUFFICIENT_DATA';
    }
    if (a.treatMissingData === 'breaching') breaching += missing;
    return breaching >= a.datapointsToAlarm ? 'ALARM' : 'OK';
  }

  private composite(a: CompositeAlarm, now: number): AlarmState {
    return new RuleParser(a.rule, (fn, name) => {
      const s = this.state(name, now);
      return fn === 'ALARM' ? s === 'ALARM' : fn === 'OK' ? s === 'OK' : s === 'INSUFFICIENT_DATA';
    }).parse()
      ? 'ALARM'
      : 'OK';
  }
}

/** A period's value of a Lambda metric from its calls; undefined when Lambda would report nothing (no calls). */
function datapoint(metric: string, statistic: string, samples: InvocationSample[]): number | undefined {
  if (!samples.length) return undefined;
  const values = metric === 'Errors' ? samples.map((s) => (s.error ? 1 : 0)) : metric === 'Invocations' ? samples.map(() => 1) : metric === 'Throttles' ? samples.map(() => 0) : samples.map((s) => s.durationMs);
  const sorted = [...values].sort((x, y) => x - y);
  const percentile = /^p(\d+(?:\.\d+)?)$/i.exec(statistic);
  if (percentile) return sorted[Math.min(sorted.length - 1, Math.ceil((Number(percentile[1]) / 100) * sorted.length) - 1)];
  switch (statistic) {
    case 'Sum':
      return values.reduce((x, y) => x + y, 0);
    case 'Average':
      return values.reduce((x, y) => x + y, 0) / values.length;
    case 'Maximum':
      return sorted[sorted.length - 1];
    case 'Minimum':
      return sorted[0];
    case 'SampleCount':
      return values.length;
    default:
      return undefined;
  }
}

function compare(value: number, op: string, threshold: number): boolean {
  switch (op) {
    case 'GreaterThanOrEqualToThreshold':
      return value >= threshold;
    case 'GreaterThanThreshold':
      return value > threshold;
    case 'LessThanThreshold':
      return value < threshold;
    case 'LessThanOrEqualToThreshold':
      return value <= threshold;
    default:
      throw new Error(`the lane does not evaluate the comparison ${op}`);
  }
}

/** A composite alarm's rule: ALARM(name), OK(name), INSUFFICIENT_DATA(name), TRUE, FALSE, NOT, AND, OR and parentheses. */
class RuleParser {
  private i = 0;
  constructor(
    private readonly text: string,
    private readonly state: (fn: 'ALARM' | 'OK' | 'INSUFFICIENT_DATA', name: string) => boolean,
  ) {}

  parse(): boolean {
    const v = this.or();
    this.space();
    if (this.i < this.text.length) throw new Error(`alarm rule: unexpected ${this.text.slice(this.i, this.i + 20)}`);
    return v;
  }

  private space() {
    while (/\s/.test(this.text[this.i] ?? '')) this.i++;
  }

  private word(w: string): boolean {
    this.space();
    if (this.text.startsWith(w, this.i) && !/[A-Za-z_]/.test(this.text[this.i + w.length] ?? '')) {
      this.i += w.length;
      return true;
    }
    return false;
  }

  private or(): boolean {
    let v = this.and();
    while (this.word('OR')) v = this.and() || v;
    return v;
  }

  private and(): boolean {
    let v = this.not();
    while (this.word('AND')) v = this.not() && v;
    return v;
  }

  private not(): boolean {
    if (this.word('NOT')) return !this.not();
    return this.atom();
  }

  private atom(): boolean {
    this.space();
    if (this.text[this.i] === '(') {
      this.i++;
      const v = this.or();
      this.space();
      if (this.text[this.i++] !== ')') throw new Error('alarm rule: a ( without its )');
      return v;
    }
    if (this.word('TRUE')) return true;
    if (this.word('FALSE')) return false;
    for (const fn of ['INSUFFICIENT_DATA', 'ALARM', 'OK'] as const) {
      if (this.word(fn)) {
        this.space();
        const m = /^\(\s*(?:"([^"]+)"|([^)\s]+))\s*\)/.exec(this.text.slice(this.i));
        if (!m) throw new Error(`alarm rule: ${fn} without its alarm`);
        this.i += m[0].length;
        // A name, or an alarm's ARN (its name is the part after `alarm:`).
        const ref = m[1] ?? m[2];
        return this.state(fn, ref.startsWith('arn:') ? ref.slice(ref.indexOf(':alarm:') + 7) : ref);
      }
    }
    throw new Error(`alarm rule: unexpected ${this.text.slice(this.i, this.i + 20)}`);
  }
}
