import { Stack, Validations, type App } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';

/**
 * cdk-nag 3 runs as a CDK validation plugin (not an Aspect as in v2): it walks the finished
 * construct tree during synthesis, and any finding that is not acknowledged fails `cdk synth`
 * (errors and warnings alike). Acknowledged findings are also written into each resource's
 * CloudFormation metadata (`cdk_nag.rules_to_suppress`) as an audit trail.
 */
export function applyNag(app: App): void {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { writeSuppressionsToCloudFormation: true }));
}

/**
 * Acknowledges (suppresses) one cdk-nag finding on a construct and everything under it.
 * v3 has no prefix matching: a rule with several findings (IAM5) needs one id per finding,
 * `AwsSolutions-IAM5[Resource::<flattened resource>]`.
 */
export function acknowledge(scope: IConstruct, id: string, reason: string): void {
  Validations.of(scope).acknowledge({ id, reason });
}

/**
 * The cdk-nag id of an IAM5 finding for a wildcard resource, computed the way cdk-nag flattens
 * it. Only deterministic values (literals and pseudo parameters, no cross-stack imports) give a
 * finding id that is known at construction time; lib/ builds wildcard ARNs from physical names
 * for that reason.
 */
export function wildcardResourceFinding(scope: IConstruct, resource: string): string {
  return `AwsSolutions-IAM5[Resource::${flatten(Stack.of(scope).resolve(resource))}]`;
}

/** Same algorithm as cdk-nag's flattenCfnReference (utils/flatten-cfn-reference). */
function flatten(node: unknown): string {
  if (node === undefined) return '';
  if (typeof node === 'string') return node.replace(/\$\{/g, '<').replace(/\}/g, '>');
  const o = node as Record<string, unknown>;
  if (o['Fn::Join']) {
    const [delimiter, items] = o['Fn::Join'] as [string, unknown[]];
    return items.map(flatten).join(delimiter);
  }
  if (o['Fn::Sub']) return flatten(o['Fn::Sub']);
  if (o['Fn::GetAtt']) {
    const [resource, attribute] = o['Fn::GetAtt'] as [unknown, unknown];
    return `<${flatten(resource)}.${flatten(attribute)}>`;
  }
  if (o['Fn::ImportValue']) return flatten(o['Fn::ImportValue']);
  if (o.Ref) return `<${flatten(o.Ref)}>`;
  return JSON.stringify(node);
}

export interface NagFinding {
  rule: string;
  severity: string;
  paths: string[];
}

/** Runs AwsSolutionsChecks on a construct tree directly (for tests); acknowledged findings are left out. */
export function nagFindings(scope: IConstruct): NagFinding[] {
  const report = new AwsSolutionsChecks().validateScope(scope);
  return report.violations.map((v) => ({
    rule: v.ruleName,
    severity: String(v.severity ?? 'error'),
    paths: v.violatingResources.map((r) => r.constructPath ?? r.resourceLogicalId ?? '?'),
  }));
}

/** Every acknowledgment recorded under a scope, as `{ path, id, reason }` (for review and reports). */
export function acknowledgments(scope: IConstruct): { path: string; id: string; reason: string }[] {
  const out: { path: string; id: string; reason: string }[] = [];
  for (const c of scope.node.findAll()) {
    for (const entry of c.node.metadata) {
      if (entry.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY || !entry.data) continue;
      for (const [id, reason] of Object.entries(entry.data as Record<string, string>)) {
        out.push({ path: c.node.path, id: id.replace(/^annotation::/i, ''), reason });
      }
    }
  }
  return out;
}
