import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Alarms, type AlarmState } from './alarms';
import { functionSpecs, type FunctionSpec, type Functions } from './sandbox';
import type { Deployment, StackResource } from './template';

/*
 * CodeDeploy on the cloud lane: what a deploy of a new cloud assembly does to the functions the
 * lane runs (docs/developers/cloud-lane.md, "A deploy and its rollback"). A function whose bundle
 * or environment changed gets a new version; its `live` alias is shifted to it by the deployment
 * group its `CodeDeployLambdaAliasUpdate` update policy names, at the pace of the group's
 * deployment configuration (canary, linear or all at once), while the lane watches the group's
 * alarms (twin/cloud/alarms.ts) on its own clock. An alarm in ALARM stops the deployment and moves
 * every alias of that deploy back to the version it had, as CodeDeploy and then CloudFormation's
 * rollback of the stack would. Only functions are deployed: a new assembly whose other resources
 * differ is refused (the lane provisions resources once, at its start).
 */

/** CodeDeploy's predefined Lambda configurations: a first share of the calls, then steps, every `minutes`. */
const configs: Record<string, { first: number; step: number; minutes: number }> = {
  'CodeDeployDefault.LambdaAllAtOnce': { first: 1, step: 0, minutes: 0 },
  'CodeDeployDefault.LambdaCanary10Percent5Minutes': { first: 0.1, step: 0.9, minutes: 5 },
  'CodeDeployDefault.LambdaCanary10Percent10Minutes': { first: 0.1, step: 0.9, minutes: 10 },
  'CodeDeployDefault.LambdaCanary10Percent15Minutes': { first: 0.1, step: 0.9, minutes: 15 },
  'CodeDeployDefault.LambdaCanary10Percent30Minutes': { first: 0.1, step: 0.9, minutes: 30 },
  'CodeDeployDefault.LambdaLinear10PercentEvery1Minute': { first: 0.1, step: 0.1, minutes: 1 },
  'CodeDeployDefault.LambdaLinear10PercentEvery2Minutes': { first: 0.1, step: 0.1, minutes: 2 },
  'CodeDeployDefault.LambdaLinear10PercentEvery3Minutes': { first: 0.1, step: 0.1, minutes: 3 },
  'CodeDeployDefault.LambdaLinear10PercentEvery10Minutes': { first: 0.1, step: 0.1, minutes: 10 },
};

/** One function's deployment: its deployment group's settings and how far it got. */
export interface FunctionDeployment {
  functionName: string;
  deploymentGroup: string;
  config: string;
  fromVersion: string;
  toVersion: string;
  /** The share of the alias's calls the new version takes now. */
  weight: number;
  status: 'InProgress' | 'Succeeded' | 'Stopped';
  /** The group's alarms, by name: any in ALARM stops the deployment. */
  alarms: string[];
}

/** A deploy of a new assembly: the functions it changed, and how it ended. */
export interface LaneDeploy {
  id: number;
  /** The lane's time it started (ISO). */
  startedAt: string;
  /** `Stopped`: an alarm stopped it and its groups do not roll back on alarm (the aliases stay where they were). */
  status: 'InProgress' | 'Succeeded' | 'RolledBack' | 'Stopped';
  functions: FunctionDeployment[];
  /** Why it rolled back: the function and the alarms in ALARM when it stopped. */
  stoppedBy?: { functionName: string; alarms: string[]; at: string };
}

interface Running {
  deploy: LaneDeploy;
  /** The assembly deployed before: a rollback returns the stacks to it. */
  previous: Deployment;
  /** The new assembly's alarms, read once. */
  alarms: Alarms;
  started: number;
  items: { fd: FunctionDeployment; from: FunctionSpec; to: FunctionSpec; config: { first: number; step: number; minutes: number }; rollbackOnAlarm: boolean; alarmsEnabled: boolean }[];
  done: Promise<LaneDeploy>;
  resolve(d: LaneDeploy): void;
}

export class Rollouts {
  readonly history: LaneDeploy[] = [];
  private running: Running | undefined;
  /** The last version published of each function: a version rolled back stays published, so the next is one more. */
  private readonly published = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private current: Deployment,
    private readonly fns: Functions,
    private readonly opts: { pollMs?: number } = {},
  ) {}

  /**
   * Deploys the assembly in `dir`: a new version of every function whose bundle or environment
   * changed, each alias shifted by its deployment group. Resolves with the deploy once it started;
   * `settled(deploy)` waits for its end.
   */
  deploy(dir: string): LaneDeploy {
    if (this.running) throw new Error(`deploy ${this.running.deploy.id} is still in progress`);
    const next = this.current.successor(dir);
    refuseOtherChanges(this.current, next);
    const now = this.fns.now();
    const items: Running['items'] = [];
    for (const [name, spec] of functionSpecs(next)) {
      const from = this.fns.specs.get(name);
      if (!from) throw new Error(`${name}: a new function; the lane deploys changes to its functions only`);
      if (fingerprint(from) === fingerprint(spec)) continue;
      const version = Math.max(this.published.get(name) ?? 0, Number(from.version)) + 1;
      this.published.set(name, version);
      const to: FunctionSpec = { ...spec, version: String(version) };
      const group = deploymentGroupOf(next, name);
      const config = configs[group.config];
      if (!config) throw new Error(`${name}: the lane does not play the deployment configuration ${group.config}`);
      items.push({
        fd: { functionName: name, deploymentGroup: group.name, config: group.config, fromVersion: from.version, toVersion: to.version, weight: 0, status: 'InProgress', alarms: group.alarms },
        from,
        to,
        config,
        rollbackOnAlarm: group.rollbackOnAlarm,
        alarmsEnabled: group.alarmsEnabled,
      });
    }
    const deploy: LaneDeploy = { id: this.history.length + 1, startedAt: new Date(now).toISOString(), status: 'InProgress', functions: items.map((i) => i.fd) };
    this.history.push(deploy);
    const previous = this.current;
    this.current = next;
    let resolve!: (d: LaneDeploy) => void;
    const done = new Promise<LaneDeploy>((r) => (resolve = r));
    this.running = { deploy, previous, alarms: new Alarms(next, this.fns), started: now, items, done, resolve };
    for (const i of items) this.fns.shift(i.fd.functionName, i.to, 0);
    this.check();
    if (this.running) this.timer = setInterval(() => this.check(), this.opts.pollMs ?? 200);
    return deploy;
  }

  /** Resolves when `deploy` ended (succeeded or rolled back): an event, not a deadline. */
  settled(deploy: LaneDeploy): Promise<LaneDeploy> {
    if (this.running?.deploy === deploy) return this.running.done;
    return Promise.resolve(deploy);
  }

  /** One look, as CodeDeploy polls: the alarms first, then the shift the elapsed time asks for. */
  check(): void {
    const run = this.running;
    if (!run) return;
    const now = this.fns.now();
    const { alarms } = run;
    for (const i of run.items) {
      if (i.fd.status !== 'InProgress' || !i.alarmsEnabled) continue;
      const firing = i.fd.alarms.filter((a) => alarms.state(a, now) === ('ALARM' satisfies AlarmState));
      if (firing.length) {
        i.fd.status = 'Stopped';
        run.deploy.stoppedBy = { functionName: i.fd.functionName, alarms: firing, at: new Date(now).toISOString() };
        if (!i.rollbackOnAlarm) return this.finish('Stopped');
        // CodeDeploy moves this alias back; the stack's update fails and CloudFormation's
        // rollback moves the deploy's other aliases back with it.
        for (const j of run.items) {
          if (j !== i && j.fd.status === 'InProgress') j.fd.status = 'Stopped';
          this.fns.point(j.fd.functionName, j.from);
          j.fd.weight = 0;
        }
        this.current = run.previous;
        return this.finish('RolledBack');
      }
    }
    const steps = (now - run.started) / 60_000;
    for (const i of run.items) {
      if (i.fd.status !== 'InProgress') continue;
      const { first, step, minutes } = i.config;
      const weight = minutes === 0 ? 1 : Math.min(1, first + Math.floor(steps / minutes + 1e-9) * step);
      if (weight >= 1 - 1e-9) {
        this.fns.point(i.fd.functionName, i.to);
        i.fd.weight = 1;
        i.fd.status = 'Succeeded';
      } else if (weight !== i.fd.weight) {
        this.fns.shift(i.fd.functionName, i.to, weight);
        i.fd.weight = weight;
      }
    }
    if (run.items.every((i) => i.fd.status === 'Succeeded')) this.finish('Succeeded');
  }

  private finish(status: LaneDeploy['status']) {
    const run = this.running!;
    run.deploy.status = status;
    this.running = undefined;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    run.resolve(run.deploy);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }
}

/** What makes a new version: the bundle's bytes and the function's settings. */
function fingerprint(spec: FunctionSpec): string {
  return createHash('sha256')
    .update(readFileSync(spec.file))
    .update(JSON.stringify([spec.environment, spec.timeoutSeconds, spec.memoryMb, spec.exportName]))
    .digest('hex');
}

/** The deployment group the `live` alias of function `name` names in its update policy, with its settings resolved. */
function deploymentGroupOf(d: Deployment, name: string) {
  const alias = d.resources('AWS::Lambda::Alias').find((r) => String(d.resolve(r.stack, r.resource.Properties?.FunctionName)) === name);
  const policy = (alias?.resource as (StackResource['resource'] & { UpdatePolicy?: any }) | undefined)?.UpdatePolicy?.CodeDeployLambdaAliasUpdate;
  if (!alias || !policy) throw new Error(`${name}: no alias with a CodeDeploy update policy in the template`);
  const ref = policy.DeploymentGroupName?.Ref as string | undefined;
  const group = ref ? alias.stack.template.Resources[ref] : undefined;
  if (!ref || !group || group.Type !== 'AWS::CodeDeploy::DeploymentGroup') throw new Error(`${name}: its update policy names no deployment group of its stack`);
  const p = d.properties({ stack: alias.stack, logicalId: ref, resource: group });
  const events = (p.AutoRollbackConfiguration?.Enabled ? p.AutoRollbackConfiguration.Events : []) as string[];
  return {
    name: d.physicalId({ stack: alias.stack, logicalId: ref, resource: group }),
    config: String(p.DeploymentConfigName ?? 'CodeDeployDefault.LambdaAllAtOnce'),
    alarms: ((p.AlarmConfiguration?.Alarms ?? []) as { Name: string }[]).map((a) => String(a.Name)),
    alarmsEnabled: p.AlarmConfiguration?.Enabled === true,
    rollbackOnAlarm: events.includes('DEPLOYMENT_STOP_ON_ALARM'),
  };
}

/** Resource types a new version changes as a matter of course (a version's logical id hashes its code). */
const perVersion = new Set(['AWS::Lambda::Version', 'AWS::CDK::Metadata']);

/** The lane deploys functions only: the same resources, by stack and logical id, or a refusal naming the first difference. */
function refuseOtherChanges(before: Deployment, after: Deployment) {
  const ids = (d: Deployment) =>
    new Set(d.stacks.flatMap((s) => Object.entries(s.template.Resources).filter(([, r]) => !perVersion.has(r.Type)).map(([id, r]) => `${s.name}/${id} (${r.Type})`)));
  const a = ids(before);
  const b = ids(after);
  const added = [...b].find((x) => !a.has(x));
  const removed = [...a].find((x) => !b.has(x));
  if (added || removed) throw new Error(`the lane deploys changes to functions only: ${added ? `${added} is new` : `${removed} is gone`}`);
}
