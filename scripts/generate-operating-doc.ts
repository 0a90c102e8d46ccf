/**
 * Writes the alarms' table of docs/operators/operating.md (between its `alarms` markers) from the
 * thresholds (lib/alarm-thresholds.ts, lib/rollout.ts) and the figures of the reference prod synth
 * (how many alarms, rollback alarms and composites it has). Never edited by hand:
 * `npm run docs:operating` writes it; test/cdk/observability.test.ts rewrites it when stale and
 * fails once, so the change is seen and committed.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { alarmThresholds as th } from '#lib/alarm-thresholds';
import { projectRoot } from '#lib/functions';
import { aliasErrorAlarm } from '#lib/rollout';
import { withSection } from './doc-markers';

export const operatingDoc = join(projectRoot, 'docs', 'operators', 'operating.md');
const begin = '<!-- alarms: generated from lib/alarm-thresholds.ts and the reference prod synth by npm run docs:operating; do not edit -->';
const end = '<!-- alarms: end -->';

/** What the reference prod synth has: metric alarms in areas, rollback alarms (in none), composites. */
export interface AlarmFigures {
  areaAlarms: number;
  rollbackAlarms: number;
  composites: number;
  /** Of the composites, the areas' own (`<namePrefix>-area-<area>`); the rest group an area's alarms. */
  areas: number;
}

/** The figures from a synth's alarm and composite names (a rollback alarm's name ends `-live-errors`, an area's composite `-area-<area>`). */
export function alarmFigures(alarmNames: readonly string[], compositeNames: readonly string[]): AlarmFigures {
  const rollback = alarmNames.filter((a) => a.endsWith('-live-errors')).length;
  return {
    areaAlarms: alarmNames.length - rollback,
    rollbackAlarms: rollback,
    composites: compositeNames.length,
    areas: compositeNames.filter((c) => /-area-[a-z]+$/.test(c)).length,
  };
}

const n = (x: number) => x.toLocaleString('en-US');
const pct = (x: number) => `${Math.round(x * 100)}%`;

/** The section, markers included: the figures, then one row per alarm kind. */
export function alarmsSection(f: AlarmFigures): string {
  const seconds = Object.entries(th.queues.oldestMessageSeconds).map(([q, s]) => `${q} ${n(s)} s`).join(', ');
  const rows: [string, string, string][] = [
    ['5xx-rate', "stage's API", `${th.api.serverErrorPercent}% or more of requests answered 5xx, with ${th.api.minRequests} requests or more in the period`],
    ['p99-latency', "stage's API", `p99 latency of ${n(th.api.p99LatencyMs)} ms or more`],
    ['errors', 'every function', `${th.functions.errors} or more failed invocations (uncaught error, timeout, crash)`],
    ['throttles', 'every function', `${th.functions.throttles} or more throttled invocations`],
    ['duration', 'every function', `the longest invocation reached ${pct(th.functions.durationOfTimeout)} of that function's timeout`],
    ['live-errors', 'every function (in no area)', `${aliasErrorAlarm.errors} or more failed invocations through its \`live\` alias in ${aliasErrorAlarm.periodMinutes} minute: rolls a rollout back, notifies nobody`],
    ['dead-letters', 'every queue', `${th.queues.deadLetterMessages} or more messages in its dead-letter queue`],
    ['oldest-message', 'every queue', `its oldest message waited: ${seconds}`],
    ['executions-failed', 'manifest pipeline', `${th.pipeline.executionsFailed} or more runs failed`],
    ['executions-timed-out', 'manifest pipeline', `${th.pipeline.executionsTimedOut} or more runs hit the 6 h timeout`],
    ['subscriptions-disabled', 'webhooks', `${th.business.webhookSubscriptionsDisabled} or more subscriptions disabled`],
    ['marketplace-sync-errors', 'orders', `${th.business.marketplaceSyncErrors} or more syncs (one account and channel) ended in error`],
    ['throttled-requests', 'table (api area)', `${th.platform.dynamodbThrottledRequests} or more requests throttled, summed over the operations the functions call`],
    ['system-errors', 'table (api area)', `${th.platform.dynamodbSystemErrors} or more DynamoDB system errors`],
    ['concurrency-near-quota', 'account (api area)', `claimed Lambda concurrency at ${pct(th.platform.accountConcurrencyOfQuota)} of \`accountConcurrencyQuota\``],
    ['jobs-failed', 'AWS Backup (api area, staging and prod)', `${th.platform.backupJobsFailed} or more backup or copy jobs failed, aborted or expired`],
    ['drift', 'stacks (api area); the edge\'s stacks (edge area, us-east-1)', 'a daily drift detection found a stack DRIFTED'],
    ['cloudfront-5xx-rate', 'edge (us-east-1)', `${th.edge.cloudFront5xxPercent}% or more of CloudFront's answers 5xx, with ${th.edge.minRequests} requests or more`],
    ['waf-rule-matches', 'each web ACL rule (us-east-1)', `${n(th.edge.wafRuleMatches)} or more requests blocked (counted, while the managed rules count)`],
  ];
  return [
    begin,
    '',
    `Thresholds are data, in \`lib/alarm-thresholds.ts\`: ${th.periodMinutes}-minute periods, ${th.evaluationPeriods === 1 ? 'one period' : `${th.evaluationPeriods} periods in a row`} to fire.`,
    `The reference prod synth (\`test/support/cdk.ts\`) has ${n(f.areaAlarms)} alarms in areas, ${n(f.rollbackAlarms)} rollback alarms (one per function, in no area) and ${n(f.composites)} composites: the ${f.areas} areas and ${f.composites - f.areas} groups of their alarms (the edge's alarms have their own composite in us-east-1, \`Despacho-<stage>-edge-watch\`).`,
    '',
    '| Alarm (`<kind>`) | Per | Fires when |',
    '|---|---|---|',
    ...rows.map(([kind, per, when]) => `| \`${kind}\` | ${per} | ${when} |`),
    '',
    end,
  ].join('\n');
}

export function operatingDocText(f: AlarmFigures): string {
  return withSection(operatingDoc, begin, end, alarmsSection(f), 'alarms');
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  const { stageApp } = await import('#support/cdk');
  const { Template } = await import('aws-cdk-lib/assertions');
  const built = stageApp('prod', { nag: false });
  const resources = [built.api, ...Object.values(built.api.routeStacks), built.data].flatMap((s) => Object.values(Template.fromStack(s).toJSON().Resources as Record<string, { Type: string; Properties: any }>));
  const names = (type: string) => resources.filter((r) => r.Type === type).map((r) => String(r.Properties.AlarmName));
  const figures = alarmFigures(names('AWS::CloudWatch::Alarm'), names('AWS::CloudWatch::CompositeAlarm'));
  writeFileSync(operatingDoc, operatingDocText(figures));
  console.log(`docs/operators/operating.md: ${JSON.stringify(figures)}`);
}
