import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { authorizer, pipelineTasks, routes, workers } from '#catalog';
import { signingSecretPurposes, type Access } from '#catalog/types';
import { cachedStage } from '#support/stage-cache';

/**
 * Issue 31, item 3: the webhook and manifest signing secrets are sealed under a customer managed
 * key of the data stack, and only the functions that sign or verify may decrypt with it.
 */

type Json = Record<string, any>;
interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: Json;
  Principal?: unknown;
}

const list = <T>(x: T | T[] | undefined): T[] => (x === undefined ? [] : Array.isArray(x) ? x : [x]);

interface Stage {
  data: Json;
  /** Every template of the stage: data, api and the api's nested stacks. */
  templates: Json[];
}

/** The stage's templates from the run's one synth of it (test/support/stage-cache.ts). */
async function build(stage: string): Promise<Stage> {
  const built = await cachedStage(stage);
  const data = built.json(built.data);
  const templates = [data, built.json(built.api), ...Object.values(built.routes).map((f) => built.json(f))];
  return { data, templates };
}

const resourcesOf = (t: Json, type: string) => Object.entries<Json>(t.Resources ?? {}).filter(([, r]) => r.Type === type);
/** The signing-secrets key (prod's data stack also holds the backup vault's key). */
const signingKeys = (t: Json) => resourcesOf(t, 'AWS::KMS::Key').filter(([id]) => id.startsWith('SigningSecretsKey'));

/** Each IAM statement of the stage with who holds it: `fn:<catalog id>` for a function's role, else `role:<logical id>`. */
function grants(s: Stage): { holder: string; statement: Statement }[] {
  const out: { holder: string; statement: Statement }[] = [];
  for (const t of s.templates) {
    const holderOf = new Map<string, string>();
    for (const [, fn] of resourcesOf(t, 'AWS::Lambda::Function')) {
      const roleId = fn.Properties.Role?.['Fn::GetAtt']?.[0];
      const name = String(fn.Properties.FunctionName ?? '');
      if (roleId) holderOf.set(roleId, name ? `fn:${name.replace(/^despacho-[a-z]+-/, '')}` : `role:${roleId}`);
    }
    const holder = (roleId: string) => holderOf.get(roleId) ?? `role:${roleId}`;
    for (const [id, role] of resourcesOf(t, 'AWS::IAM::Role')) {
      for (const p of list<Json>(role.Properties.Policies)) for (const st of p.PolicyDocument.Statement) out.push({ holder: holder(id), statement: st });
    }
    for (const [, policy] of [...resourcesOf(t, 'AWS::IAM::Policy'), ...resourcesOf(t, 'AWS::IAM::ManagedPolicy')]) {
      for (const role of list<Json>(policy.Properties.Roles)) {
        for (const st of policy.Properties.PolicyDocument.Statement) out.push({ holder: holder(role.Ref ?? JSON.stringify(role)), statement: st });
      }
    }
  }
  return out;
}

/** Whether a statement's actions include `action` (exactly, or through a `kms:*`-style wildcard). */
const allows = (st: Statement, action: string) =>
  st.Effect === 'Allow' && list(st.Action).some((a) => a === action || a === '*' || (a.endsWith('*') && action.startsWith(a.slice(0, -1))));

let dev: Stage;
let prod: Stage;
let keyId: string;

beforeAll(async () => {
  [dev, prod] = await Promise.all([build('dev'), build('prod')]);
  keyId = signingKeys(dev.data)[0][0];
}, 120_000);

/** The functions the catalog says may do `action` on a kind of signing secret. */
function catalogHolders(action: 'seal' | 'open'): string[] {
  const entries: { id: string; uses?: Access }[] = [...routes.filter((r) => !r.twinOnly), ...workers, ...Object.values(pipelineTasks), authorizer];
  return entries.filter((e) => Object.values(e.uses?.signingSecrets ?? {}).some((actions) => actions?.includes(action))).map((e) => `fn:${e.id}`).sort();
}

/** The key's ARN as the api stack imports it from the data stack. */
const isSigningKey = (resource: unknown) => JSON.stringify(resource).includes(`GetAtt${keyId}Arn`);

describe('the signing-secrets key', { timeout: 60_000 }, () => {
  it('is one customer managed key of the data stack, rotated yearly, named by an alias of the stage', () => {
    const keys = resourcesOf(dev.data, 'AWS::KMS::Key');
    expect(keys).toHaveLength(1);
    expect(keys[0][1].Properties).toMatchObject({ EnableKeyRotation: true, PendingWindowInDays: 7 });
    // Yearly is KMS's default rotation period (no RotationPeriodInDays written).
    expect(keys[0][1].Properties.RotationPeriodInDays ?? 365).toBe(365);
    const alias = resourcesOf(dev.data, 'AWS::KMS::Alias');
    expect(alias.map(([, a]) => a.Properties.AliasName)).toEqual(['alias/despacho-dev-signing-secrets']);
    expect(alias[0][1].Properties.TargetKeyId).toEqual({ 'Fn::GetAtt': [keyId, 'Arn'] });
  });

  it('takes its removal policy from the stage: dev deletes it with the stack, prod retains it with the table', () => {
    const [, devKey] = signingKeys(dev.data)[0];
    expect([devKey.DeletionPolicy, devKey.UpdateReplacePolicy]).toEqual(['Delete', 'Delete']);
    const [, prodKey] = signingKeys(prod.data)[0];
    expect([prodKey.DeletionPolicy, prodKey.UpdateReplacePolicy]).toEqual(['Retain', 'Retain']);
    expect(prodKey.Properties).toMatchObject({ EnableKeyRotation: true, PendingWindowInDays: 30 });
    const [, prodTable] = resourcesOf(prod.data, 'AWS::DynamoDB::Table')[0];
    expect(prodKey.DeletionPolicy).toBe(prodTable.DeletionPolicy);
  });

  it("names in its key policy only the account itself, so IAM decides who uses it (no service, no other principal)", () => {
    const [, key] = signingKeys(dev.data)[0];
    const statements = key.Properties.KeyPolicy.Statement as Statement[];
    for (const st of statements) {
      expect(st.Principal).toEqual({ AWS: { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::', { Ref: 'AWS::AccountId' }, ':root']] } });
    }
  });
});

describe('who may decrypt the signing secrets', { timeout: 60_000 }, () => {
  const decrypters = ['fn:CouriersSubmit', 'fn:ManifestsCreate', 'fn:WebhookDelivery', 'fn:WebhooksRetry', 'fn:WebhooksTest'];

  it('is exactly the functions that sign webhook deliveries or verify X-Signature, as the catalog declares', () => {
    for (const stage of [dev, prod]) {
      const holders = [...new Set(grants(stage).filter((g) => allows(g.statement, 'kms:Decrypt') && list(g.statement.Resource).some(isSigningKey)).map((g) => g.holder))].sort();
      expect(holders).toEqual(decrypters);
    }
    expect(catalogHolders('open')).toEqual(decrypters);
  });

  it('is no other role of any stack: nothing else has kms:Decrypt on that key or on every resource', () => {
    for (const stage of [dev, prod]) {
      const others = grants(stage).filter(
        (g) => allows(g.statement, 'kms:Decrypt') && !decrypters.includes(g.holder) && list(g.statement.Resource).some((r) => isSigningKey(r) || r === '*'),
      );
      expect(others.map((g) => `${g.holder}: ${JSON.stringify(g.statement)}`)).toEqual([]);
    }
  });

  it('lets each function reach only its own kind of secret: webhook functions webhook-signing, intake manifest-signing', () => {
    const purposes = (holder: string) =>
      grants(dev)
        .filter((g) => g.holder === holder && list(g.statement.Action).some((a) => a.startsWith('kms:')))
        .map((g) => g.statement.Condition?.StringEquals?.['kms:EncryptionContext:purpose'])
        .sort();
    for (const id of ['fn:WebhookDelivery', 'fn:WebhooksRetry', 'fn:WebhooksTest', 'fn:WebhooksCreate', 'fn:WebhooksRotateSecret']) expect(purposes(id), id).toEqual([signingSecretPurposes.webhook]);
    for (const id of ['fn:CouriersSubmit', 'fn:ManifestsCreate', 'fn:AdminAccountSigningSecret']) expect(purposes(id), id).toEqual([signingSecretPurposes.manifest]);
    expect(purposes('fn:AdminMigrateSigningSecrets')).toEqual([signingSecretPurposes.manifest, signingSecretPurposes.webhook].sort());
    // Every kms: grant of every role is conditioned on a purpose and names the signing key only (a Deny, the drift check's, grants nothing).
    for (const g of grants(dev).filter((g) => g.statement.Effect === 'Allow' && list(g.statement.Action).some((a) => a.startsWith('kms:')))) {
      expect(Object.values(signingSecretPurposes), g.holder).toContain(g.statement.Condition?.StringEquals?.['kms:EncryptionContext:purpose']);
      expect(list(g.statement.Resource).every(isSigningKey), g.holder).toBe(true);
      expect(list(g.statement.Action).every((a) => a === 'kms:Encrypt' || a === 'kms:Decrypt'), g.holder).toBe(true);
    }
  });

  it('lets only the functions that make, rotate, migrate or read through a secret encrypt with the key', () => {
    const encrypters = [...new Set(grants(dev).filter((g) => allows(g.statement, 'kms:Encrypt') && list(g.statement.Resource).some(isSigningKey)).map((g) => g.holder))].sort();
    expect(encrypters).toEqual(
      ['fn:AdminAccountSigningSecret', 'fn:AdminMigrateSigningSecrets', 'fn:WebhooksCreate', 'fn:WebhooksRotateSecret', ...decrypters].sort(),
    );
    expect(catalogHolders('seal')).toEqual(encrypters);
  });

  it('tells exactly those functions the key, by ARN', () => {
    const withKey: string[] = [];
    for (const t of dev.templates) {
      for (const [, fn] of resourcesOf(t, 'AWS::Lambda::Function')) {
        const arn = fn.Properties.Environment?.Variables?.SIGNING_SECRETS_KEY_ARN;
        if (arn === undefined) continue;
        expect(isSigningKey(arn)).toBe(true);
        withKey.push(`fn:${String(fn.Properties.FunctionName).replace(/^despacho-dev-/, '')}`);
      }
    }
    expect(withKey.sort()).toEqual(catalogHolders('seal'));
  });
});
