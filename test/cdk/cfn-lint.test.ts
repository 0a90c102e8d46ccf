import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '#lib/functions';
import { stages } from '#lib/stage';
import { runOk } from '#support/run';
import { balanced, cfnLint, lintableFiles, unseenPart, type Finding, type Template } from '#support/cfn-lint';
import { onPath, toolAvailable } from '#support/tools';

/**
 * cfn-lint (the machine's Python, see docs/operators/deploy.md, "Static checks of the stacks") on every
 * template `cdk synth` writes for each stage: the data stack, the api stack and each of its nested
 * route stacks, each resource once (a staging or prod resource that is dev's but for the stage's
 * name is not linted again: test/support/cfn-lint.ts). Run without a config and compared here
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

  it.skipIf(!lintable)(
    'finds no error and no warning beyond the accepted ones in any template of dev, staging and prod',
    async () => {
      if (!onPath('cfn-lint')) throw new Error('cfn-lint is not on the PATH, and CI_REQUIRE_CLOUD_TOOLS=1 requires it (pip install cfn-lint)');
      const dir = mkdtempSync(join(tmpdir(), 'despacho-cfn-lint-'));
      try {
        const started = Date.now();
        // Each stage in a process of its own, side by side (a synth is synchronous: one after the other they took their sum).
        const synthesized = await Promise.all(
          stages.map(async (stage) => [stage, JSON.parse(await runOk(process.execPath, ['--import', 'tsx', 'test/support/stage-templates-process.ts', stage, join(dir, stage)], { timeout: 580_000 })) as string[]] as const),
        );
        const templates = Object.fromEntries(synthesized);
        const synthMs = Date.now() - started;
        const files = lintableFiles(stages.map((stage) => ({ stage, files: templates[stage], read: (file) => JSON.parse(readFileSync(file, 'utf8')) })));
        // One cfn-lint per CPU, side by side, each with about the same number of resources.
        const groups = balanced(files, availableParallelism());
        const findings = (await Promise.all(groups.map((group) => cfnLint(group.map((f) => f.file), dir)))).flat();
        const linted = files.reduce((n, f) => n + f.resources, 0);
        console.info(
          `cfn-lint: ${Object.values(templates).flat().length} templates of ${stages.join(', ')}, ${linted} resources in ${files.length} of them by ${groups.length} processes; synth ${synthMs} ms, lint ${Date.now() - started - synthMs} ms`,
        );

        const accepted = new Set(acceptedRules().map((a) => a.rule));
        const shown = (f: Finding) => `${f.Rule.Id} ${basename(f.Filename)} ${(f.Location.Path ?? []).join('/')}: ${f.Message}`;
        expect(findings.filter((f) => f.Level === 'Error').map(shown)).toEqual([]);
        expect(findings.filter((f) => f.Level === 'Warning' && !accepted.has(f.Rule.Id)).map(shown)).toEqual([]);
        // The templates still give each accepted warning: a stale entry is removed, not kept.
        const given = new Set(findings.map((f) => f.Rule.Id));
        for (const rule of accepted) expect(given.has(rule), `${rule} accepted, but no template gives it`).toBe(true);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    // Each resource once: about 1,600 of the three stages' 3,132 resources, some 17 s of CPU
    // (every template in full took about 30 s; on a shared two-core machine, 186 s of wall time).
    // With every function behind a live alias and CodeDeploy group (issue 43), and staging built
    // as prod, 123 s beside one other test run; a full suite plus a synth beside it passed 300 s:
    // the bound is for a hang, not a target (docs/developers/testing.md).
    600_000,
  );

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
