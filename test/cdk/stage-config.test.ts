import { run } from '#support/run';
import { join } from 'node:path';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { authorizer, fallback } from '#catalog';
import { routes } from '#catalog';
import { edgeLimits } from '#lib/edge';
import { floodLimits } from '#lib/api';
import { routeKey } from '#catalog/routing';
import { projectRoot } from '#lib/functions';
import { RemovalPolicy } from 'aws-cdk-lib';
import { configKeys, resolveStageConfig, stageSettings, StageConfigError } from '#lib/stage';
import type { BuiltStage } from '#lib/app';
import { referenceProd, referenceStaging, stageApp } from '#support/cdk';
import { oidcStatements } from '#support/workflows';

/** Runs bin/app.ts as `cdk synth` does (context in CDK_CONTEXT_JSON) and answers its exit code and stderr. */
async function cdkApp(context: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const ran = await run(join(projectRoot, 'node_modules/.bin/tsx'), ['bin/app.ts'], {
    cwd: projectRoot,
    env: { ...process.env, CDK_CONTEXT_JSON: JSON.stringify(context), CDK_OUTDIR: join(projectRoot, 'cdk.out.test-never-written') },
    timeout: 120_000,
  });
  return { code: ran.status, stderr: ran.stderr };
}

/** Every template of a built stage, nested route stacks included. */
function templates(built: BuiltStage): Template[] {
  return [built.data, built.api, ...Object.values(built.api.routeStacks), ...(built.edge ? [built.edge] : [])].map((s) => Template.fromStack(s));
}

/** The actions of one statement (by Sid) of a managed policy in .github/aws/github-oidc.yaml. */
const oidcPolicy = (resource: string, sid: string): string[] => [oidcStatements(resource).find((st) => st.Sid === sid)!.Action].flat();

describe('stages as configuration', () => {
  it('refuses prod without settings, naming every missing one in one message, before building anything', async () => {
    const { code, stderr } = await cdkApp({ stage: 'prod' });
    expect(code).toBe(1);
    expect(stderr.match(/stage prod cannot synthesize/g)).toHaveLength(1);
    for (const key of ['account', 'region', 'alarmEmail', 'alarmTopicArn', 'corsOrigins']) expect(stderr, key).toContain(`-c ${key}=`);
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it("refuses CORS '*' and a stage with no alarm subscriber in prod", () => {
    const given = { ...referenceProd, corsOrigins: '*', alarmEmail: undefined };
    const err = (() => {
      try {
        resolveStageConfig('prod', given);
      } catch (e) {
        return e as StageConfigError;
      }
    })()!;
    expect(err).toBeInstanceOf(StageConfigError);
    expect(err.problems.join('\n')).toMatch(/alarm subscriber/);
    expect(err.problems.join('\n')).toMatch(/prod refuses '\*'/);
    // An existing topic is a subscriber too.
    expect(resolveStageConfig('prod', { ...given, corsOrigins: 'https://console.example.com', alarmTopicArn: 'arn:aws:sns:sa-east-1:111111111111:oncall' }).alarmTopicArn).toBe('arn:aws:sns:sa-east-1:111111111111:oncall');
  });

  it('lets -c override every key of the file, each checked', () => {
    const given = {
      account: '222222222222',
      region: 'us-west-2',
      domainName: 'API.Example.org',
      certificateArn: 'arn:aws:acm:us-west-2:222222222222:certificate/0b6f5a6e-6d1d-4b8a-9f0a-2f8f8e7d1c11',
      hostedZoneId: 'Z0123456789ABC',
      hostedZoneName: 'example.org',
      corsOrigins: 'https://a.example.org,https://b.example.org',
      alarmEmails: 'a@example.org',
      alarmEmail: 'b@example.org',
      alarmTopicArn: 'arn:aws:sns:us-west-2:222222222222:pager',
      logRetentionDays: '14',
      tracing: 'off',
      tracingSampleRate: '0.5',
      edgeProtection: 'off',
      originClientCertificateArn: 'arn:aws:acm:us-east-1:222222222222:certificate/5e0b7c2a-8f41-4c1e-9d3a-6b2f0e1c7d90',
      originTruststoreUri: 's3://truststore-bucket/ca/origin.pem',
      reservedConcurrency: 'on',
      wafManagedRules: 'block',
      rollout: 'all-at-once',
      smokeReceiver: 'off',
      docsBaseUrl: 'https://docs.example.org/operators',
      alarmHttpsEndpoints: 'https://events.example.org/hook',
      accountConcurrencyQuota: '2000',
      backupCopyVaultArn: 'arn:aws:backup:us-east-2:222222222222:backup-vault:copy',
      backupCopyRetentionDays: '60',
      budgetMonthlyUsd: '300',
      budgetEmails: 'finance@example.org',
      proofRetentionYears: '10',
    };
    expect(Object.keys(given).sort()).toEqual([...configKeys].sort());
    expect(resolveStageConfig('staging', given)).toEqual({
      account: '222222222222',
      region: 'us-west-2',
      domainName: 'api.example.org',
      certificateArn: given.certificateArn,
      hostedZoneId: 'Z0123456789ABC',
      hostedZoneName: 'example.org',
      corsOrigins: ['https://a.example.org', 'https://b.example.org'],
      alarmEmails: ['a@example.org', 'b@example.org'],
      alarmTopicArn: given.alarmTopicArn,
      logRetentionDays: 14,
      tracing: false,
      tracingSampleRate: 0.5,
      edgeProtection: false,
      originClientCertificateArn: given.originClientCertificateArn,
      originTruststoreUri: given.originTruststoreUri,
      reservedConcurrency: true,
      wafManagedRules: 'block',
      rollout: 'all-at-once',
      smokeReceiver: false,
      docsBaseUrl: 'https://docs.example.org/operators/',
      alarmHttpsEndpoints: ['https://events.example.org/hook'],
      accountConcurrencyQuota: 2000,
      backupCopyVaultArn: given.backupCopyVaultArn,
      backupCopyRetentionDays: 60,
      budgetMonthlyUsd: 300,
      budgetEmails: ['finance@example.org'],
      proofRetentionYears: 10,
    });
    const bad = {
      account: 'x',
      region: 'Mars',
      domainName: 'not a host',
      logRetentionDays: '13',
      tracing: 'maybe',
      tracingSampleRate: '2',
      edgeProtection: 'sometimes',
      alarmTopicArn: 'topic',
      originClientCertificateArn: 'cert',
      originTruststoreUri: 'https://bucket/key',
      reservedConcurrency: 'some',
      wafManagedRules: 'sometimes',
      rollout: 'slowly',
      smokeReceiver: 'maybe',
      docsBaseUrl: 'http://docs',
      alarmHttpsEndpoints: 'mailto:x',
      accountConcurrencyQuota: '5',
      backupCopyVaultArn: 'vault',
      backupCopyRetentionDays: '0',
      budgetMonthlyUsd: '-1',
      budgetEmails: 'nobody',
      proofRetentionYears: '4.5',
    };
    const problems = (() => {
      try {
        resolveStageConfig('dev', bad);
        return [];
      } catch (e) {
        return (e as StageConfigError).problems;
      }
    })().join('\n');
    for (const key of Object.keys(bad)) expect(problems, key).toContain(key);
  });

  it('wants the certificate where CloudFront or the API reads it', () => {
    const east = 'arn:aws:acm:us-east-1:111111111111:certificate/0b6f5a6e-6d1d-4b8a-9f0a-2f8f8e7d1c11';
    const south = 'arn:aws:acm:sa-east-1:111111111111:certificate/0b6f5a6e-6d1d-4b8a-9f0a-2f8f8e7d1c11';
    expect(resolveStageConfig('prod', { ...referenceProd, certificateArn: east }).certificateArn).toBe(east);
    expect(() => resolveStageConfig('prod', { ...referenceProd, certificateArn: south })).toThrow(/us-east-1 only/);
    expect(() => resolveStageConfig('staging', { ...referenceProd, edgeProtection: 'off', certificateArn: east })).toThrow(/needs a certificate in sa-east-1/);
    expect(() => resolveStageConfig('prod', { ...referenceProd, originClientCertificateArn: south })).toThrow(/origin client certificate in us-east-1 only/);
  });

  it('refuses the edge without its own domain, the client certificate CloudFront presents and the truststore that checks it', () => {
    const { domainName, originClientCertificateArn, originTruststoreUri, hostedZoneId: _zone, hostedZoneName: _zoneName, ...rest } = referenceProd;
    expect(domainName && originClientCertificateArn && originTruststoreUri).toBeTruthy();
    const problems = (() => {
      try {
        resolveStageConfig('dev', { ...rest, edgeProtection: 'on' });
        return '';
      } catch (e) {
        return (e as StageConfigError).problems.join('\n');
      }
    })();
    for (const key of ['domainName', 'originClientCertificateArn', 'originTruststoreUri']) expect(problems, key).toContain(`-c ${key}=`);
    expect(problems).toMatch(/edgeProtection needs them/);
    expect(resolveStageConfig('dev', { ...rest, edgeProtection: 'off' }).edgeProtection).toBe(false);
  });

  it('builds staging with prod\'s settings, and refuses staging or prod without what prod needs or with a certificate that would wait on a DNS record', () => {
    const fail = (stage: 'staging' | 'prod', overrides: Record<string, unknown>) => {
      try {
        resolveStageConfig(stage, overrides, {});
        return '';
      } catch (e) {
        return (e as StageConfigError).problems.join('\n');
      }
    };
    for (const stage of ['staging', 'prod'] as const) {
      const bare = fail(stage, {});
      for (const need of ['account', 'region', 'domainName', 'an alarm subscriber', 'corsOrigins']) expect(bare, `${stage} ${need}`).toContain(need);
      const { hostedZoneId: _zone, hostedZoneName: _zoneName, ...noZone } = stage === 'prod' ? referenceProd : referenceStaging;
      expect(fail(stage, noZone)).toMatch(/hostedZoneId and hostedZoneName \(the zone of api\.(staging\.)?example\.com: the origin domain's certificate is validated in it/);
      expect(fail(stage, { ...noZone, edgeProtection: 'off' })).toMatch(/hostedZoneId and hostedZoneName, or certificateArn/);
      expect(fail(stage, { ...noZone, edgeProtection: 'off', certificateArn: 'arn:aws:acm:sa-east-1:111111111111:certificate/5e0b7c2a-8f41-4c1e-9d3a-6b2f0e1c7d90' })).toBe('');
      expect(fail(stage, { ...(stage === 'prod' ? referenceProd : referenceStaging), corsOrigins: '*' })).toMatch(new RegExp(`corsOrigins: ${stage} refuses '\\*'`));
    }
    const staging = stageSettings('staging', {}, referenceStaging);
    const prod = stageSettings('prod', {}, referenceProd);
    for (const key of ['versionedFiles', 'throttle', 'publicRouteThrottle', 'noncurrentVersionExpiration', 'accessLogExpiration'] as const) expect(staging[key], key).toEqual(prod[key]);
    for (const key of ['edgeProtection', 'reservedConcurrency', 'tracingSampleRate', 'wafManagedRules'] as const) expect(staging.config[key], key).toEqual(prod.config[key]);
    // What staging keeps of its own: it can be torn down and built again.
    expect([staging.dataRemovalPolicy, prod.dataRemovalPolicy]).toEqual([RemovalPolicy.DESTROY, RemovalPolicy.RETAIN]);
  });
});

describe('the synthesized stages', { timeout: 120_000 }, () => {
  let prod: BuiltStage;
  let dev: BuiltStage;
  let devDomain: BuiltStage;
  beforeAll(() => {
    prod = stageApp('prod');
    dev = stageApp('dev');
    devDomain = stageApp('dev', { overrides: { domainName: 'api.dev.example.com', hostedZoneId: 'Z0123456789ABC', hostedZoneName: 'example.com' } });
  });

  it('writes no account or region into a template but what the configuration gave', () => {
    for (const t of templates(dev)) {
      const text = JSON.stringify(t.toJSON());
      expect(text.match(/(?<![\w.])\d{12}(?![\w.])/g)).toBeNull();
      expect(text.match(/\b(us|sa|eu|ap|ca|me|af|il|mx)-(east|west|south|north|central|southeast|northeast)-\d\b/g)).toBeNull();
    }
    for (const t of templates(prod)) {
      const text = JSON.stringify(t.toJSON());
      for (const account of text.match(/(?<![\w.])\d{12}(?![\w.])/g) ?? []) expect(account).toBe('111111111111');
      // CloudFront reads its web ACL and certificate in us-east-1 only: the one region not configured
      // (us-west-2 is the backup copy vault's, which the configuration gives).
      for (const region of text.match(/\b(us|sa|eu|ap|ca|me|af|il|mx)-(east|west|south|north|central|southeast|northeast)-\d\b/g) ?? []) expect(['sa-east-1', 'us-east-1', 'us-west-2']).toContain(region);
    }
    expect(prod.api.region).toBe('sa-east-1');
    expect(prod.api.account).toBe('111111111111');
    expect(prod.edge!.region).toBe('us-east-1');
  });

  it("answers a request without a token at API Gateway and keeps the authorizer's answer per credential", () => {
    Template.fromStack(dev.api).hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      IdentitySource: ['$request.header.Authorization'],
      AuthorizerResultTtlInSeconds: authorizer.cacheTtlSeconds,
      EnableSimpleResponses: true,
    });
    Template.fromStack(prod.api).hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      IdentitySource: ['$request.header.Authorization', '$request.header.X-Origin-Verify'],
      AuthorizerResultTtlInSeconds: authorizer.cacheTtlSeconds,
    });
    expect(authorizer.cacheTtlSeconds).toBeGreaterThan(0);
    expect(authorizer.cacheTtlSeconds).toBeLessThanOrEqual(300);
  });

  it('puts CloudFront and a web ACL with the managed rules and a rate limit per IP in front of the prod API', () => {
    const edge = Template.fromStack(prod.edge!);
    edge.hasResourceProperties('AWS::WAFv2::WebACL', {
      Scope: 'CLOUDFRONT',
      Rules: Match.arrayWith([
        Match.objectLike({ Name: 'RatePerIp', Statement: { RateBasedStatement: Match.objectLike({ Limit: edgeLimits.requestsPerIpPer5Minutes, AggregateKeyType: 'IP' }) } }),
        Match.objectLike({ Statement: { ManagedRuleGroupStatement: Match.objectLike({ Name: 'AWSManagedRulesCommonRuleSet' }) } }),
        Match.objectLike({ Statement: { ManagedRuleGroupStatement: Match.objectLike({ Name: 'AWSManagedRulesKnownBadInputsRuleSet' }) } }),
      ]),
    });
    edge.resourceCountIs('AWS::WAFv2::LoggingConfiguration', 1);
    edge.hasResourceProperties('AWS::CertificateManager::Certificate', { DomainName: 'api.example.com' });
    const api = Template.fromStack(prod.api);
    api.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({ Aliases: ['api.example.com'], WebACLId: Match.anyValue(), ViewerCertificate: Match.objectLike({ MinimumProtocolVersion: 'TLSv1.2_2021' }) }),
    });
    // The authorizer knows the header CloudFront adds.
    const fns = api.findResources('AWS::Lambda::Function', { Properties: { FunctionName: 'despacho-prod-Authorizer' } });
    expect(Object.values(fns)[0].Properties.Environment.Variables.ORIGIN_VERIFY).toBeDefined();
    Template.fromStack(dev.api).resourceCountIs('AWS::CloudFront::Distribution', 0);
    expect(dev.edge).toBeUndefined();
  });

  it('gives a stage without edge protection its domain as an API Gateway custom domain with a mapping and an alias', () => {
    const api = Template.fromStack(devDomain.api);
    api.hasResourceProperties('AWS::ApiGatewayV2::DomainName', { DomainName: 'api.dev.example.com' });
    api.resourceCountIs('AWS::ApiGatewayV2::ApiMapping', 1);
    api.hasResourceProperties('AWS::CertificateManager::Certificate', { DomainName: 'api.dev.example.com', DomainValidationOptions: [{ DomainName: 'api.dev.example.com', HostedZoneId: 'Z0123456789ABC' }] });
    api.hasResourceProperties('AWS::Route53::RecordSet', { Name: 'api.dev.example.com.', Type: 'A' });
  });

  it('disables the execute-api endpoint wherever the edge is on, so CloudFront on the origin domain, by mutual TLS, is the only way to a function', () => {
    for (const [name, built] of Object.entries({ prod, dev, devDomain })) {
      const api = Template.fromStack(built.api);
      const [httpApi] = Object.values(api.findResources('AWS::ApiGatewayV2::Api'));
      expect(httpApi.Properties.DisableExecuteApiEndpoint === true, name).toBe(Boolean(built.edge));
    }
    expect(prod.edge).toBeDefined();
    const api = Template.fromStack(prod.api);
    api.hasResourceProperties('AWS::ApiGatewayV2::DomainName', {
      DomainName: 'origin.api.example.com',
      DomainNameConfigurations: [Match.objectLike({ EndpointType: 'REGIONAL', SecurityPolicy: 'TLS_1_2' })],
      MutualTlsAuthentication: { TruststoreUri: referenceProd.originTruststoreUri },
    });
    api.resourceCountIs('AWS::ApiGatewayV2::ApiMapping', 1);
    const [distribution] = Object.values(api.findResources('AWS::CloudFront::Distribution'));
    expect(distribution.Properties.DistributionConfig.Origins).toEqual([
      expect.objectContaining({
        DomainName: 'origin.api.example.com',
        CustomOriginConfig: expect.objectContaining({ OriginProtocolPolicy: 'https-only', OriginMtlsConfig: { ClientCertificateArn: referenceProd.originClientCertificateArn } }),
      }),
    ]);
    expect(JSON.stringify(distribution)).not.toMatch(/execute-api|ApiEndpoint/);
    expect(JSON.stringify(api.toJSON().Outputs)).not.toMatch(/ApiEndpoint/);
  });

  it('throttles each public route and $default on its own, below the limit of the routes partners use', () => {
    const publicKeys = routes.filter((r) => r.auth === 'public' && !r.twinOnly).map(routeKey);
    expect(publicKeys.length).toBeGreaterThan(0);
    for (const [built, stageRate] of [[prod, 500], [dev, 50]] as const) {
      const [stage] = Object.values(Template.fromStack(built.api).findResources('AWS::ApiGatewayV2::Stage'));
      const settings = stage.Properties.RouteSettings as Record<string, { ThrottlingRateLimit: number; ThrottlingBurstLimit: number }>;
      expect(Object.keys(settings).sort()).toEqual([...publicKeys, '$default'].sort());
      expect(stage.Properties.DefaultRouteSettings.ThrottlingRateLimit).toBe(stageRate);
      for (const [key, limit] of Object.entries(settings)) {
        expect(limit.ThrottlingRateLimit, key).toBeLessThanOrEqual(stageRate / 5);
        expect(limit.ThrottlingBurstLimit, key).toBeGreaterThanOrEqual(limit.ThrottlingRateLimit);
      }
    }
  });

  it('reserves concurrency in prod for the authorizer, and caps the public routes and $default, within the account quota; dev reserves none', () => {
    const reserved = (built: BuiltStage) => {
      const out: Record<string, number> = {};
      for (const t of templates(built)) {
        for (const r of Object.values(t.findResources('AWS::Lambda::Function'))) {
          if (r.Properties.ReservedConcurrentExecutions !== undefined) out[String(r.Properties.FunctionName).replace(/^despacho-[a-z]+-/, '')] = r.Properties.ReservedConcurrentExecutions;
        }
      }
      return out;
    };
    const publicIds = routes.filter((r) => r.auth === 'public' && !r.twinOnly).map((r) => r.id);
    expect(reserved(prod)).toEqual({
      [authorizer.id]: floodLimits.authorizer,
      [fallback.id]: floodLimits.fallback,
      ...Object.fromEntries(publicIds.map((id) => [id, floodLimits.publicRoute])),
    });
    const total = Object.values(reserved(prod)).reduce((a, b) => a + b, 0);
    expect(total).toBeLessThanOrEqual(floodLimits.accountQuotaAtLeast - floodLimits.unreservedFloor);
    expect(reserved(dev)).toEqual({});
  });

  it('gives every role the stacks create the despacho-boundary, which allows every action they are granted and every resource they make', () => {
    const boundary = oidcPolicy('DeployBoundary', 'TheServicesOfTheStacks');
    const allowed = (action: string) => boundary.some((a) => new RegExp(`^${a.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`, 'i').test(action));
    const execution = oidcPolicy('CloudFormationExecutionPolicy', 'TheResourcesOfTheStacks');
    const serviceOf: Record<string, string> = { ApiGatewayV2: 'apigateway', CertificateManager: 'acm', StepFunctions: 'states' };
    for (const built of [prod, dev]) {
      for (const t of templates(built)) {
        for (const [id, r] of Object.entries(t.toJSON().Resources as Record<string, { Type: string; Properties?: any }>)) {
          if (r.Type === 'AWS::IAM::Role') expect(JSON.stringify(r.Properties.PermissionsBoundary), id).toMatch(/:policy\/despacho-boundary"/);
          if (r.Type.startsWith('AWS::') && r.Type !== 'AWS::IAM::Role' && r.Type !== 'AWS::IAM::Policy') {
            const service = r.Type.split('::')[1];
            expect(execution, r.Type).toContain(`${serviceOf[service] ?? service.toLowerCase()}:*`);
          }
          for (const action of JSON.stringify(r.Properties ?? {}).match(/"Action":(\[[^\]]*\]|"[^"]*")/g) ?? []) {
            for (const a of [JSON.parse(action.slice('"Action":'.length))].flat() as string[]) if (typeof a === 'string' && a.includes(':')) expect(allowed(a), `${id}: ${a}`).toBe(true);
          }
        }
      }
    }
  });

  it("lets each rate-limited route's function count its own rate window, and nothing else of the table besides its uses", () => {
    const limited = routes.filter((r) => r.rate && !r.twinOnly);
    for (const r of limited.slice(0, 5)) {
      const nested = dev.api.routeStacks[r.tag];
      const policies = Template.fromStack(nested).findResources('AWS::IAM::Policy');
      const statements = Object.values(policies).flatMap((p) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Condition?: unknown }[]);
      expect(statements.some((s) => s.Action === 'dynamodb:UpdateItem' && JSON.stringify(s.Condition) === JSON.stringify({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['rate#*'] } })), r.id).toBe(true);
    }
  });

  it("samples the stage's traces at its configured rate", () => {
    Template.fromStack(prod.api).hasResourceProperties('AWS::XRay::SamplingRule', { SamplingRule: Match.objectLike({ FixedRate: 0.05, ServiceName: 'despacho-prod-*' }) });
    Template.fromStack(dev.api).hasResourceProperties('AWS::XRay::SamplingRule', { SamplingRule: Match.objectLike({ FixedRate: 1, ServiceName: 'despacho-dev-*' }) });
    const off = stageApp('staging', { overrides: { tracing: 'off' } });
    Template.fromStack(off.api).resourceCountIs('AWS::XRay::SamplingRule', 0);
  });

  it('caps every queue event source, so a burst of deliveries or syncs leaves the API its concurrency', () => {
    const mappings = Template.fromStack(prod.api).findResources('AWS::Lambda::EventSourceMapping');
    expect(Object.keys(mappings).length).toBeGreaterThan(0);
    for (const [id, m] of Object.entries(mappings)) expect(m.Properties.ScalingConfig?.MaximumConcurrency, id).toBeGreaterThanOrEqual(2);
  });
});
