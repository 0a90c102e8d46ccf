import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { authorizer, fallback, pipelineTasks, routes, workers } from '#catalog';
import type { BuiltStage } from '#lib/app';
import { aliasErrorAlarm, canaryByKind } from '#lib/rollout';
import { resolveStageConfig } from '#lib/stage';
import { stageApp } from '#support/cdk';
import { cachedStage } from '#support/stage-cache';

type Resource = { Type: string; Properties: any; UpdatePolicy?: any };

/** Every resource of the api stack and its nested route stacks (their logical ids are distinct). */
function resourcesOf(built: BuiltStage): Record<string, Resource> {
  const out: Record<string, Resource> = {};
  for (const stack of [built.api, ...Object.values(built.api.routeStacks)]) Object.assign(out, Template.fromStack(stack).toJSON().Resources);
  return out;
}

/** The same of the run's one synth of the stage (test/support/stage-cache.ts). */
async function cachedResourcesOf(stage: string): Promise<Record<string, Resource>> {
  const s = await cachedStage(stage);
  const out: Record<string, Resource> = {};
  for (const file of [s.api, ...Object.values(s.routes)]) Object.assign(out, s.json(file).Resources);
  return out;
}

const ofType = (r: Record<string, Resource>, type: string) => Object.entries(r).filter(([, x]) => x.Type === type);
/** The catalog's functions (named `despacho-<stage>-<id>`), not the CDK's own custom-resource handlers. */
const catalogFunctions = (r: Record<string, Resource>, stage: string) => ofType(r, 'AWS::Lambda::Function').filter(([, f]) => String(f.Properties.FunctionName).startsWith(`despacho-${stage}-`));
const deployedRoutes = routes.filter((r) => !r.twinOnly);
const kinds: Record<string, keyof typeof canaryByKind> = Object.fromEntries([
  ...deployedRoutes.map((r) => [r.id, 'route']),
  [fallback.id, 'route'],
  [authorizer.id, 'authorizer'],
  ...workers.map((w) => [w.id, 'worker']),
  ...Object.values(pipelineTasks).map((t) => [t.id, 'pipeline']),
]);
const codeDeployName = { CANARY_10PERCENT_5MINUTES: 'CodeDeployDefault.LambdaCanary10Percent5Minutes', CANARY_10PERCENT_10MINUTES: 'CodeDeployDefault.LambdaCanary10Percent10Minutes' } as const;

/** Each function's name, its live alias, the alias's CodeDeploy group and the alarms that roll the group back. */
function rolloutsOf(r: Record<string, Resource>, stage: string) {
  const alarmsById = Object.fromEntries(ofType(r, 'AWS::CloudWatch::Alarm'));
  return Object.fromEntries(
    catalogFunctions(r, stage).map(([fnId, fn]) => {
      const id = String(fn.Properties.FunctionName).replace(`despacho-${stage}-`, '');
      const aliases = ofType(r, 'AWS::Lambda::Alias').filter(([, a]) => a.Properties.FunctionName?.Ref === fnId);
      expect(aliases.map(([, a]) => a.Properties.Name), id).toEqual(['live']);
      const [aliasId, alias] = aliases[0];
      const update = alias.UpdatePolicy?.CodeDeployLambdaAliasUpdate;
      expect(update, `${id}: its alias moves through CodeDeploy`).toBeDefined();
      const group = r[update.DeploymentGroupName.Ref];
      expect(group.Type).toBe('AWS::CodeDeploy::DeploymentGroup');
      const alarms = (group.Properties.AlarmConfiguration.Alarms as { Name: unknown }[]).map((a) =>
        typeof a.Name === 'string' ? a.Name : alarmsById[(a.Name as { Ref: string }).Ref]?.Properties.AlarmName,
      );
      return [id, { fnId, aliasId, alias, group: group.Properties, alarms }];
    }),
  );
}

describe('canary rollouts that undo themselves', { timeout: 120_000 }, () => {
  let prod: Record<string, Resource>;
  let dev: Record<string, Resource>;
  beforeAll(async () => {
    // cdk-nag on (as the cache synthesizes) only adds its acknowledgments to the resources' Metadata, which a
    // function version's id is not made of (the CDK hashes the function's properties): the last test compares them
    // with a synth without cdk-nag.
    [prod, dev] = await Promise.all([cachedResourcesOf('prod'), cachedResourcesOf('dev')]);
  });

  it("puts every function behind a live alias that CodeDeploy shifts by its kind's canary, rolled back by its alias's errors and its area's composite alarm", () => {
    const rollouts = rolloutsOf(prod, 'prod');
    expect(Object.keys(rollouts).sort()).toEqual(Object.keys(kinds).sort());
    for (const [id, r] of Object.entries(rollouts)) {
      expect(r.group.DeploymentConfigName, id).toBe(codeDeployName[canaryByKind[kinds[id]].config]);
      expect(r.group.AutoRollbackConfiguration, id).toEqual({ Enabled: true, Events: expect.arrayContaining(['DEPLOYMENT_FAILURE', 'DEPLOYMENT_STOP_ON_ALARM']) });
      expect(r.group.AlarmConfiguration.Enabled, id).toBe(true);
      expect(r.group.AlarmConfiguration.IgnorePollAlarmFailure, id).toBe(false);
      expect(r.alarms[0], id).toBe(`despacho-prod-${id}-live-errors`);
      expect(r.alarms.some((a: string) => /^despacho-prod-area-[a-z]+$/.test(a)), `${id}: its area`).toBe(true);
      // What answers HTTP is also rolled back by the API's 5xx rate (a route's handled failure is a 500, not a function error).
      if (kinds[id] !== 'worker' && kinds[id] !== 'pipeline') expect(r.alarms.includes('despacho-prod-api-5xx-rate') || r.alarms.includes('despacho-prod-area-api'), id).toBe(true);
    }
    expect(rollouts.CustomsCalculate.alarms).toEqual(['despacho-prod-CustomsCalculate-live-errors', 'despacho-prod-area-pipeline', 'despacho-prod-api-5xx-rate']);
    expect(rollouts.WebhookDelivery.alarms).toEqual(['despacho-prod-WebhookDelivery-live-errors', 'despacho-prod-area-webhooks']);
    expect(rollouts.Authorizer.alarms).toEqual(['despacho-prod-Authorizer-live-errors', 'despacho-prod-area-api']);
  });

  it('trips the rollback alarm on one uncaught error of the live alias in a minute, which notifies nobody (the area does)', () => {
    const alarm = ofType(prod, 'AWS::CloudWatch::Alarm').find(([, a]) => a.Properties.AlarmName === 'despacho-prod-ManifestIntake-live-errors')![1].Properties;
    expect(alarm).toMatchObject({
      MetricName: 'Errors',
      Namespace: 'AWS/Lambda',
      Statistic: 'Sum',
      Period: aliasErrorAlarm.periodMinutes * 60,
      EvaluationPeriods: 1,
      Threshold: aliasErrorAlarm.errors,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
    // The alias's own metric: the Resource dimension is `<function>:live`.
    expect(JSON.stringify(alarm.Dimensions)).toContain(':live');
    expect(alarm.AlarmActions).toBeUndefined();
  });

  it('makes every caller call the alias: the integrations, the authorizer, the event sources and the state machine', () => {
    const aliasIds = new Set(ofType(prod, 'AWS::Lambda::Alias').map(([id]) => id));
    for (const [id, i] of ofType(prod, 'AWS::ApiGatewayV2::Integration')) expect(aliasIds.has(i.Properties.IntegrationUri?.Ref), `${id} ${JSON.stringify(i.Properties.IntegrationUri)}`).toBe(true);
    for (const [id, a] of ofType(prod, 'AWS::ApiGatewayV2::Authorizer')) expect([...aliasIds].some((alias) => JSON.stringify(a.Properties.AuthorizerUri).includes(alias)), id).toBe(true);
    for (const [id, m] of ofType(prod, 'AWS::Lambda::EventSourceMapping')) expect(JSON.stringify(m.Properties.FunctionName), id).toMatch(/"Ref":"[A-Za-z0-9]+Live[A-Z0-9]+".*":live"/);
    const [, machine] = ofType(prod, 'AWS::StepFunctions::StateMachine')[0];
    const definition = JSON.stringify(machine.Properties.DefinitionString);
    const fnIds = catalogFunctions(prod, 'prod').map(([id]) => id);
    for (const fnId of fnIds) expect(definition, fnId).not.toContain(`"${fnId}","Arn"`);
    const rollouts = rolloutsOf(prod, 'prod');
    for (const t of Object.values(pipelineTasks)) expect(definition, t.id).toContain(rollouts[t.id].aliasId);
    // And only the alias may be invoked by API Gateway: every permission names an alias.
    for (const [id, p] of ofType(prod, 'AWS::Lambda::Permission')) expect(aliasIds.has(p.Properties.FunctionName?.Ref), `${id} ${JSON.stringify(p.Properties.FunctionName)}`).toBe(true);
  });

  it('moves every alias at once in dev, with the same groups and alarms, and takes -c rollout=canary|all-at-once', () => {
    const rollouts = rolloutsOf(dev, 'dev');
    for (const [id, r] of Object.entries(rollouts)) expect(r.group.DeploymentConfigName, id).toBe('CodeDeployDefault.LambdaAllAtOnce');
    expect(resolveStageConfig('dev', {}, {}).rollout).toBe('all-at-once');
    expect(resolveStageConfig('dev', { rollout: 'canary' }, {}).rollout).toBe('canary');
    expect(() => resolveStageConfig('dev', { rollout: 'blue-green' }, {})).toThrow(/rollout "blue-green": use canary or all-at-once/);
  });

  it('publishes a changed function as a new version the alias moves to through its group, and leaves the others where they are', () => {
    const before = rolloutsOf(prod, 'prod');
    const changed = resourcesOf(stageApp('prod', { nag: false, catalog: { routes: routes.map((r) => (r.id === 'Health' ? { ...r, timeoutSeconds: 9 } : r)) } }));
    const after = rolloutsOf(changed, 'prod');
    const version = (r: { alias: Resource }) => r.alias.Properties.FunctionVersion['Fn::GetAtt'][0];
    expect(version(after.Health)).not.toBe(version(before.Health));
    expect(after.Health.alias.UpdatePolicy.CodeDeployLambdaAliasUpdate.DeploymentGroupName).toEqual(before.Health.alias.UpdatePolicy.CodeDeployLambdaAliasUpdate.DeploymentGroupName);
    for (const id of ['MyTokensRevoke', 'WebhookDelivery', 'Authorizer']) expect(version(after[id]), id).toBe(version(before[id]));
  });
});
