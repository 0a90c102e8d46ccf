import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { stageApp } from '#support/cdk';
import { cachedStage, type CachedStage } from '#support/stage-cache';

/**
 * Issue 44: the proofs of delivery are kept on a bucket of their own under S3 Object Lock in
 * COMPLIANCE mode, five years by default, so the bucket's configuration itself refuses a change or
 * a deletion before then, whatever role asks.
 */
type Resource = { Type: string; Properties: any; DeletionPolicy?: string };
const buckets = (t: Template) => Object.values(t.toJSON().Resources as Record<string, Resource>).filter((r) => r.Type === 'AWS::S3::Bucket');
const proofsBucket = (t: Template) => buckets(t).find((b) => b.Properties.ObjectLockEnabled === true);
type Statement = { Effect: string; Action: string | string[]; Resource: unknown };
/** Every IAM statement anywhere in a template (policies and roles' inline policies alike). */
function statementsOf(node: unknown, out: Statement[] = []): Statement[] {
  if (Array.isArray(node)) node.forEach((n) => statementsOf(n, out));
  else if (node && typeof node === 'object') {
    const o = node as Record<string, unknown>;
    if (typeof o.Effect === 'string' && o.Action !== undefined) out.push(o as Statement);
    else Object.values(o).forEach((n) => statementsOf(n, out));
  }
  return out;
}

describe('the proofs of delivery bucket', { timeout: 180_000 }, () => {
  let prod: CachedStage;
  let prodData: Template;

  beforeAll(async () => {
    // The run's one synth of prod (test/support/stage-cache.ts).
    prod = await cachedStage('prod');
    prodData = prod.template(prod.data);
  });

  it('has Object Lock on with a default retention of COMPLIANCE for 5 years in the prod template', () => {
    const bucket = proofsBucket(prodData);
    expect(bucket).toBeDefined();
    expect(bucket!.Properties.ObjectLockConfiguration).toEqual({ ObjectLockEnabled: 'Enabled', Rule: { DefaultRetention: { Mode: 'COMPLIANCE', Years: 5 } } });
    expect(bucket!.Properties.VersioningConfiguration).toEqual({ Status: 'Enabled' });
    expect(bucket!.DeletionPolicy).toBe('Retain');
    expect(bucket!.Properties.PublicAccessBlockConfiguration).toMatchObject({ BlockPublicAcls: true, RestrictPublicBuckets: true });
  });

  it('is a bucket of its own, apart from the files bucket, which has no Object Lock', () => {
    const all = buckets(prodData);
    expect(all.filter((b) => b.Properties.ObjectLockEnabled === true)).toHaveLength(1);
    expect(JSON.stringify(proofsBucket(prodData)!.Properties.BucketName)).toContain('-proofs-');
  });

  it("takes the retention from the stage's configuration", () => {
    const dev = stageApp('dev', { overrides: { proofRetentionYears: '7' } });
    expect(proofsBucket(Template.fromStack(dev.data))!.Properties.ObjectLockConfiguration.Rule.DefaultRetention).toEqual({ Mode: 'COMPLIANCE', Years: 7 });
  });

  it('grants no function a way around the lock: no retention, legal-hold or delete action on the proofs bucket', () => {
    // The api stack and every stack nested in it (writeStageTemplates checks that its route stacks are all of them).
    const stacks = [prod.api, ...Object.values(prod.routes)];
    const statements = stacks.flatMap((f) => statementsOf(prod.json(f)));
    const onProofs = statements.filter((s) => JSON.stringify(s.Resource ?? null).includes('-proofs-'));
    expect(onProofs.length).toBeGreaterThan(0);
    const actions = onProofs.flatMap((s) => [s.Action].flat());
    expect(actions.filter((a) => /Delete|Retention|LegalHold|Bypass|PutBucket/.test(a))).toEqual([]);
  });
});
