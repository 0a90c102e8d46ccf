import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '#lib/functions';
import { stages } from '#lib/stage';
import { balanced, cfnLint, lintableFiles, unseenPart, type Finding, type Template } from '#support/cfn-lint';
import { referenceProd, referenceStaging } from '#support/cdk';
import { cachedStage } from '#support/stage-cache';
import { onPath, toolAvailable } from '#support/tools';

/**
 * cfn-lint (the machine's Python, see docs/operators/deploy.md, "Static checks of the stacks") on every
 * template `cdk synth` writes for each stage: the data stack, the api stack and each of its nested
 * route stacks, each resource once (a staging or prod resource that is dev's but for the stage's
 * name is not linted again: test/support/cfn-lint.ts), from the run's one synth of each stage
 * (test/support/stage-cache.ts). One test per stage. Run without a config and compared here
 * with the rules `.cfnlintrc.yaml` accepts, so an accepted rule that no template gives any more
 * is reported too.
 */

/** The rules .cfnlintrc.yaml ignores, each with the reason written on its line. */
function acceptedRules(): { rule: string; reason: string }[] {
  const text = readFileSync(join(projectRoot, '.cfnlintrc.yaml'), 'utf8');
  const block = text.split(/^ignore_checks:\s*$/m)[1] ?? '';
  const out: { rule: string; reason: string }[] = [];
  for (const line of block.split('\n')) {
    if (/^\S/.test(line)) break;
    const m = /^\s+-\s+([EWI]\d{4})\s*(?:#\s*(.*))?$/.exec(line);
    if (m) out.push({ rule: m[1], reason: (m[2] ?? '').trim() });
  }
  return out;
}

const lintable = toolAvailable('cfn-lint', 'cfn-lint on the synthesized templates of dev, staging and prod');

describe('cfn-lint', () => {
  it('accepts each warning in .cfnlintrc.yaml with a written reason, and no error', () => {
    const accepted = acceptedRules();
    expect(accepted.length).toBeGreaterThan(0);
    for (const a of accepted) {
      expect(a.rule, `${a.rule} is an error: errors are fixed, never accepted`).toMatch(/^W/);
      expect(a.reason.length, `${a.rule} has no reason`).toBeGreaterThan(40);
    }
  });

  describe.skipIf(!lintable)('on the templates of dev, staging and prod', () => {
    const accepted = new Set(acceptedRules().map((a) => a.rule));
    const shown = (f: Finding) => `${f.Rule.Id} ${basename(f.Filename)} ${(f.Location.Path ?? []).join('/')}: ${f.Message}`;
    let dir: string;
    /** The files to lint of each stage (the part of a later stage's template not linted in an earlier one) with their resource counts. */
    const toLint: Record<string, { file: string; resources: number }[]> = {};

    beforeAll(async () => {
      if (!onPath('cfn-lint')) throw new Error('cfn-lint is not on the PATH, and CI_REQUIRE_CLOUD_TOOLS=1 requires it (pip install cfn-lint)');
      // The run's one synth of each stage (test/support/stage-cache.ts), copied: lintableFiles writes over what it leaves out.
      const synthesized = await Promise.all(stages.map((stage) => cachedStage(stage)));
      dir = mkdtempSync(join(tmpdir(), 'despacho-cfn-lint-'));
      const given = synthesized.map((s) => {
        mkdirSync(join(dir, s.stage));
        const files = s.files.map((f) => join(dir, s.stage, f));
        for (const f of s.files) cpSync(s.path(f), join(dir, s.stage, f));
        return { stage: s.stage, files, read: (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Template };
      });
      const stageOf = new Map(given.flatMap((g) => g.files.map((f) => [f, g.stage] as const)));
      for (const stage of stages) toLint[stage] = [];
      for (const f of lintableFiles(given)) toLint[stageOf.get(f.file)!].push(f);
    }, 600_000);
    afterAll(() => {
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    /**
     * cfn-lint's findings on part `part` of a stage's files (the stage's files in `parts` groups of about the same number of
     * resources): one cfn-lint per CPU, side by side, each with about the same number of resources; once per part.
     */
    const parts = 2;
    const findings = new Map<string, Promise<Finding[]>>();
    const lint = (stage: string, part: number): Promise<Finding[]> => {
      const key = `${stage} ${part}`;
      if (!findings.has(key)) {
        findings.set(
          key,
          (async () => {
            const started = Date.now();
            const files = balanced(toLint[stage], parts)[part - 1] ?? [];
            const groups = balanced(files, availableParallelism());
            const found = (await Promise.all(groups.map((group) => cfnLint(group.map((f) => f.file), dir)))).flat();
            const resources = files.reduce((n, f) => n + f.resources, 0);
            console.info(`cfn-lint ${stage} ${part}/${parts}: ${resources} resources in ${files.length} templates by ${groups.length} processes, ${Date.now() - started} ms`);
            return found;
          })(),
        );
      }
      return findings.get(key)!;
    };
    const everyPart = Array.from({ length: parts }, (_, i) => i + 1);

    // Each resource once: about 3,700 of the three stages' 5,775 resources (dev about 1,900, staging 1,650, prod 160), each
    // stage's in two tests of about the same number of resources, so that none takes 30 s on a quiet machine. The
    // bound is for a hang, not a target (docs/developers/testing.md).
    for (const stage of stages) {
      for (const part of everyPart) {
        it(`finds no error and no warning beyond the accepted ones in the templates of ${stage}, part ${part} of ${parts}`, async () => {
          expect(toLint[stage].length, `${stage} has no template to lint`).toBeGreaterThan(0);
          const found = await lint(stage, part);
          expect(found.filter((f) => f.Level === 'Error').map(shown)).toEqual([]);
          expect(found.filter((f) => f.Level === 'Warning' && !accepted.has(f.Rule.Id)).map(shown)).toEqual([]);
        });
      }
    }

    it('is still given each accepted warning by some template of dev, staging or prod', async () => {
      // A stale entry of .cfnlintrc.yaml is removed, not kept.
      const given = new Set((await Promise.all(stages.flatMap((stage) => everyPart.map((part) => lint(stage, part))))).flat().map((f) => f.Rule.Id));
      for (const rule of accepted) expect(given.has(rule), `${rule} accepted, but no template gives it`).toBe(true);
    });
  });

  describe('of a later stage, lints only what an earlier stage did not give', () => {
    /** A stage's template: a queue with its policy, a function with its role, a log group; `retention` and `timeout` as the stage sets them. */
    const template = (stage: string, o: { retention: number; timeout: number }): Template => ({
      Parameters: { [`referencetoDespacho${stage}apiTopic1A2B3C4DRef`]: { Type: 'String' }, Unused: { Type: 'String' } },
      Resources: {
        Role1A2B3C4D: { Type: 'AWS::IAM::Role', Properties: { RoleName: `despacho-${stage}-fn`, AssumeRolePolicyDocument: {} } },
        Fn5E6F7A8B: {
          Type: 'AWS::Lambda::Function',
          DependsOn: ['Role1A2B3C4D'],
          Properties: { Role: { 'Fn::GetAtt': ['Role1A2B3C4D', 'Arn'] }, Code: { S3Key: `${stage === 'dev' ? 'a' : 'b'}`.repeat(64) + '.zip' }, Timeout: o.timeout },
        },
        Logs9C0D1E2F: { Type: 'AWS::Logs::LogGroup', Properties: { RetentionInDays: o.retention, Tags: [{ Key: 'stage', Value: stage }] } },
        Queue3A4B5C6D: { Type: 'AWS::SQS::Queue', Properties: { QueueName: { 'Fn::Sub': `despacho-${stage}-q-\${AWS::Region}` } } },
        Alarm7E8F9A0B: { Type: 'AWS::CloudWatch::Alarm', Properties: { AlarmActions: [{ Ref: `referencetoDespacho${stage}apiTopic1A2B3C4DRef` }] } },
      },
    });
    const file = (stage: string) => `Despacho${stage}apiRoutesOrders${stage === 'dev' ? '629F7A9C' : '6BD50D4C'}.nested.template.json`;

    it("leaves out each resource that is an earlier stage's but for the stage's name, the hashes made of it and the assets' hashes", () => {
      const seen = new Set<string>();
      expect(unseenPart('dev', file('dev'), template('dev', { retention: 30, timeout: 10 }), seen)).toEqual(template('dev', { retention: 30, timeout: 10 }));
      expect(unseenPart('prod', file('prod'), template('prod', { retention: 30, timeout: 10 }), seen)).toBeUndefined();
    });

    it("leaves out a resource that is an earlier stage's but for the values of the stage's reference settings and a function version's hash", () => {
      const settings = { staging: referenceStaging, prod: referenceProd } as const;
      const stageTemplate = (stage: 'staging' | 'prod', version: string): Template => {
        const s = settings[stage];
        return {
          Mappings: { ZoneMap: { aws: { zoneId: 'Z2FDTNDATAQYW2' } }, RegionMap: { 'sa-east-1': { budget: 'on' } } },
          Resources: {
            [`FnCurrentVersion1A2B3C4D${version}`]: { Type: 'AWS::Lambda::Version', Properties: { FunctionName: `despacho-${stage}-fn` } },
            Subscription5E6F7A8B: { Type: 'AWS::SNS::Subscription', Properties: { Protocol: 'email', Endpoint: String(s.alarmEmail), TopicArn: `arn:aws:sns:${s.region}:${s.account}:despacho-${stage}-alarms` } },
            Record9C0D1E2F: {
              Type: 'AWS::Route53::RecordSet',
              Properties: { Name: String(s.domainName), HostedZoneId: String(s.hostedZoneId), Type: 'A', AliasTarget: { HostedZoneId: { 'Fn::FindInMap': ['ZoneMap', 'aws', 'zoneId'] } } },
            },
            Budget3A4B5C6D: { Type: 'AWS::Budgets::Budget', Properties: { Budget: { BudgetLimit: { Amount: Number(s.budgetMonthlyUsd), Unit: 'USD' }, Name: { 'Fn::FindInMap': ['RegionMap', 'sa-east-1', 'budget'] } } } },
          },
        };
      };
      expect(referenceProd.account).not.toBe(referenceStaging.account);
      expect(referenceProd.domainName).not.toBe(referenceStaging.domainName);
      const seen = new Set<string>();
      unseenPart('staging', 'Despacho-staging-api.template.json', stageTemplate('staging', 'a'.repeat(32)), seen);
      const part = unseenPart('prod', 'Despacho-prod-api.template.json', stageTemplate('prod', 'b'.repeat(32)), seen)!;
      // The budget's amount is a number, not masked: prod's differs, so it is linted again.
      expect(Object.keys(part.Resources)).toEqual(['Budget3A4B5C6D']);
      // Only the mappings the kept resources read: one only the left-out record read would be an unused mapping (W7001).
      expect(part.Mappings).toEqual({ RegionMap: { 'sa-east-1': { budget: 'on' } } });
    });

    it('keeps a resource that differs with every resource it names, and only the parameters they use', () => {
      const seen = new Set<string>();
      unseenPart('dev', file('dev'), template('dev', { retention: 30, timeout: 10 }), seen);
      const part = unseenPart('prod', file('prod'), template('prod', { retention: 365, timeout: 20 }), seen)!;
      expect(Object.keys(part.Resources).sort()).toEqual(['Fn5E6F7A8B', 'Logs9C0D1E2F', 'Role1A2B3C4D']);
      expect(part.Parameters).toEqual({});
    });

    it.skipIf(!lintable)('still finds what cfn-lint finds in a resource only a later stage gives, in a template that stays whole', async () => {
      // Valid resources: a queue (whose visibility timeout prod sets out of range) naming its dead-letter queue, and a log group.
      const valid = (stage: string, timeout: number): Template => ({
        Resources: {
          Dlq1A2B3C4D: { Type: 'AWS::SQS::Queue', Properties: { QueueName: `despacho-${stage}-dlq` } },
          Queue5E6F7A8B: { Type: 'AWS::SQS::Queue', Properties: { VisibilityTimeout: timeout, RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': ['Dlq1A2B3C4D', 'Arn'] }, maxReceiveCount: 3 } } },
          Logs9C0D1E2F: { Type: 'AWS::Logs::LogGroup', Properties: { RetentionInDays: 30, Tags: [{ Key: 'stage', Value: stage }] } },
        },
      });
      const dir = mkdtempSync(join(tmpdir(), 'despacho-cfn-lint-part-'));
      try {
        const given = (['dev', 'prod'] as const).map((stage) => {
          mkdirSync(join(dir, stage));
          const path = join(dir, stage, file(stage));
          writeFileSync(path, JSON.stringify(valid(stage, stage === 'prod' ? 999_999 : 30)));
          return { stage, files: [path], read: (f: string) => JSON.parse(readFileSync(f, 'utf8')) as Template };
        });
        const files = lintableFiles(given);
        expect(files.map((f) => f.resources)).toEqual([3, 2]);
        const findings = await cfnLint(files.map((f) => f.file), dir);
        expect(findings.map((f) => [basename(f.Filename), f.Rule.Id, f.Location.Path?.join('/')])).toEqual([[file('prod'), 'E3034', 'Resources/Queue5E6F7A8B/Properties/VisibilityTimeout']]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
