import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { buildApp, type BuildOptions, type BuiltStage } from '#lib/app';
import type { StageOverrides } from '#lib/stage';
import { projectRoot } from '#lib/functions';

/** The feature flags cdk.json gives the CLI, so these templates are what `cdk synth` writes. */
export const cdkJsonContext: Record<string, unknown> = JSON.parse(readFileSync(join(projectRoot, 'cdk.json'), 'utf8')).context;

/** The reference prod synth of docs/operators/cost.md: the settings prod cannot synthesize without, and a domain. */
export const referenceProd: StageOverrides = {
  account: '111111111111',
  region: 'sa-east-1',
  domainName: 'api.example.com',
  alarmEmail: 'ops@example.com',
  corsOrigins: 'https://console.example.com',
  originClientCertificateArn: 'arn:aws:acm:us-east-1:111111111111:certificate/5e0b7c2a-8f41-4c1e-9d3a-6b2f0e1c7d90',
  originTruststoreUri: 's3://despacho-prod-truststore-111111111111/origin-ca.pem',
  backupCopyVaultArn: 'arn:aws:backup:us-west-2:111111111111:backup-vault:despacho-prod-copy',
  budgetMonthlyUsd: 500,
  docsBaseUrl: 'https://github.com/example/despacho/blob/main/docs/operators/',
  hostedZoneId: 'Z0123456789ABCDEFGHIJ',
  hostedZoneName: 'example.com',
};

/** The reference staging synth: prod's settings (issue 43) in staging's own account and names. */
export const referenceStaging: StageOverrides = {
  ...referenceProd,
  account: '222222222222',
  domainName: 'api.staging.example.com',
  corsOrigins: 'https://console.staging.example.com',
  originClientCertificateArn: 'arn:aws:acm:us-east-1:222222222222:certificate/7a1c9e4b-2d3f-4b6a-8c5e-1f0a9b8d7c6e',
  originTruststoreUri: 's3://despacho-staging-truststore-222222222222/origin-ca.pem',
  backupCopyVaultArn: 'arn:aws:backup:us-west-2:222222222222:backup-vault:despacho-staging-copy',
  budgetMonthlyUsd: 200,
};

/**
 * Builds one stage in-process without esbuild (`aws:cdk:bundling-stacks: []` gives
 * NodejsFunction a placeholder asset) and without the CDK's built-in CloudFormation schema check
 * (about 12 s per app here; `cdk synth` still runs it). cdk-nag stays registered (unless
 * `opts.nag` is false), so synthesizing the templates throws on any unacknowledged finding.
 * `outdir`: where `app.synth()` writes the cloud assembly (a temporary directory otherwise).
 * prod is built with the reference settings of docs/operators/cost.md (`referenceProd`), staging with
 * `referenceStaging` (prod's settings), under any given overrides.
 */
export function stageApp(stage: string, opts: Omit<BuildOptions, 'app'> = {}, outdir?: string): BuiltStage {
  const app = new App({ outdir, context: { ...cdkJsonContext, 'aws:cdk:bundling-stacks': [] }, builtinCloudFormationValidation: false });
  const reference = stage === 'prod' ? referenceProd : stage === 'staging' ? referenceStaging : undefined;
  const overrides = reference ? { ...reference, ...opts.overrides } : opts.overrides;
  return buildApp(stage, { ...opts, overrides, app });
}

/** The templates one synth of a stage wrote, each a file name in its output directory. */
export interface StageTemplateFiles {
  /** Every template, sorted by name. */
  files: string[];
  data: string;
  api: string;
  edge?: string;
  edgeWatch?: string;
  /** The api stack's nested route stacks, by route tag. */
  routes: Record<string, string>;
}

/**
 * Synthesizes one stage into `outdir` and answers the names of every template it wrote: the
 * data and api stacks, the edge and edge-watch stacks when the stage has them, and each nested stack of the api
 * stack (as `cdk synth` writes them), each also by the stack it is.
 */
export function writeStageTemplates(stage: string, outdir: string): StageTemplateFiles {
  const built = stageApp(stage, {}, outdir);
  built.app.synth();
  const files = readdirSync(outdir)
    .filter((f) => f.endsWith('.template.json'))
    .sort();
  const expected = 2 + (built.edge ? 1 : 0) + (built.edgeWatch ? 1 : 0) + Object.keys(built.api.routeStacks).length;
  if (files.length !== expected) throw new Error(`${stage}: expected ${expected} templates in ${outdir}, found ${files.length}`);
  const named: StageTemplateFiles = {
    files,
    data: built.data.templateFile,
    api: built.api.templateFile,
    edge: built.edge?.templateFile,
    edgeWatch: built.edgeWatch?.templateFile,
    routes: Object.fromEntries(Object.entries(built.api.routeStacks).map(([tag, nested]) => [tag, nested.templateFile])),
  };
  for (const f of [named.data, named.api, named.edge, named.edgeWatch, ...Object.values(named.routes)]) {
    if (f !== undefined && !files.includes(f)) throw new Error(`${stage}: ${f} is not among the templates written to ${outdir}`);
  }
  return named;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Placeholder values for the references a definition string holds, by the kind of thing referenced. */
const placeholderAccount = '123456789012';
const placeholderRegion = 'us-east-1';

/**
 * A state machine's `DefinitionString` as the ASL object Step Functions would receive: the
 * `Fn::Join` of JSON text and references resolved with placeholders (pseudo parameters to a
 * fixed partition, region and account; `Fn::GetAtt <fn>.Arn`, and a `Ref` of an alias, to a Lambda
 * function ARN named after the logical id). Any other intrinsic inside the definition is an error, so nothing passes
 * unresolved.
 */
export function resolveDefinition(definitionString: unknown): Record<string, any> {
  const value = (node: Json): string => {
    if (typeof node === 'string') return node;
    const o = node as Record<string, Json>;
    if (o && typeof o === 'object' && !Array.isArray(o)) {
      if (o.Ref === 'AWS::Partition') return 'aws';
      if (o.Ref === 'AWS::Region') return placeholderRegion;
      if (o.Ref === 'AWS::AccountId') return placeholderAccount;
      if (o.Ref === 'AWS::URLSuffix') return 'amazonaws.com';
      // A Lambda alias's Ref is its ARN (the state machine calls each task's live alias): named after the alias's logical id.
      if (typeof o.Ref === 'string' && !o.Ref.startsWith('AWS::')) return `arn:aws:lambda:${placeholderRegion}:${placeholderAccount}:function:${o.Ref}`;
      const getAtt = o['Fn::GetAtt'] as string[] | undefined;
      if (getAtt && getAtt[1] === 'Arn') return `arn:aws:lambda:${placeholderRegion}:${placeholderAccount}:function:${getAtt[0]}`;
      if (o['Fn::Join']) {
        const [delimiter, parts] = o['Fn::Join'] as [string, Json[]];
        return parts.map(value).join(delimiter);
      }
    }
    throw new Error(`resolveDefinition: cannot resolve ${JSON.stringify(node)}`);
  };
  return JSON.parse(value(definitionString as Json));
}

/** The ASL definitions of every state machine of a synthesized template (a template's JSON), by logical id. */
export function stateMachineDefinitions(template: { Resources?: Record<string, { Type: string; Properties?: any }> }): Record<string, Record<string, any>> {
  const out: Record<string, Record<string, any>> = {};
  for (const [id, r] of Object.entries(template.Resources ?? {})) {
    if (r.Type === 'AWS::StepFunctions::StateMachine') out[id] = resolveDefinition(r.Properties.DefinitionString);
  }
  return out;
}
