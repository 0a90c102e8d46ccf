import { ArnFormat, CfnOutput, Fn, RemovalPolicy, SecretValue, Stack, type StackProps } from 'aws-cdk-lib';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as route53 from 'aws-cdk-lib/aws-route53';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as targets from 'aws-cdk-lib/aws-route53-targets';
import * as secrets from 'aws-cdk-lib/aws-secretsmanager';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { routes as catalogRoutes } from '#catalog';
import { fullPath } from '#catalog/routing';
import type { RouteDef } from '#catalog/types';
import { acknowledge } from './nag';
import type { StageSettings } from './stage';

/**
 * The edge's figures, decided in docs/operators/deploy.md ("The edge"). A rate-based rule counts a
 * client IP's requests over the evaluation window and blocks it for as long as it stays over.
 * 3,000 requests in 5 minutes is 10 a second sustained from one address: five times the busiest
 * per-token limit of spec 8 (couriers' status checks, 120 a minute), so a partner behind one NAT
 * with several integrations stays well under it, while a flood from one host is dropped at the
 * edge, before API Gateway, a function or the table is paid for.
 */
export const edgeLimits = { requestsPerIpPer5Minutes: 3000 } as const;

/** The web ACL's name (also its CloudWatch metrics' WebACL dimension). */
export const webAclName = (settings: StageSettings) => `${settings.namePrefix}-edge`;

/**
 * The managed rules that inspect a request's body for attack patterns (XSS, path traversal,
 * remote file inclusion, the metadata address, Java deserialization, Log4J), with the label each
 * adds (AWS WAF's managed rule groups documentation). Inside their groups they only label and
 * count; `BodyRulesOutsideUploads` refuses a request they labelled unless its path is an upload
 * route's (`uploadRoutes`): a workbook, a PDF or a manifest is data the functions parse, never
 * HTML, a path or a URL, and its bytes may look like any of these patterns.
 */
export const wafBodyRules = [
  { group: 'AWSManagedRulesCommonRuleSet', rule: 'CrossSiteScripting_BODY', label: 'awswaf:managed:aws:core-rule-set:CrossSiteScripting_Body' },
  { group: 'AWSManagedRulesCommonRuleSet', rule: 'GenericLFI_BODY', label: 'awswaf:managed:aws:core-rule-set:GenericLFI_Body' },
  { group: 'AWSManagedRulesCommonRuleSet', rule: 'GenericRFI_BODY', label: 'awswaf:managed:aws:core-rule-set:GenericRFI_Body' },
  { group: 'AWSManagedRulesCommonRuleSet', rule: 'EC2MetaDataSSRF_BODY', label: 'awswaf:managed:aws:core-rule-set:EC2MetaDataSSRF_Body' },
  { group: 'AWSManagedRulesKnownBadInputsRuleSet', rule: 'JavaDeserializationRCE_BODY', label: 'awswaf:managed:aws:known-bad-inputs:JavaDeserializationRCE_Body' },
  { group: 'AWSManagedRulesKnownBadInputsRuleSet', rule: 'Log4JRCE_BODY', label: 'awswaf:managed:aws:known-bad-inputs:Log4JRCE_Body' },
] as const;

/** The routes whose bodies are files or whole manifests (catalog ids): the body rules only count on them. */
export const uploadRoutes = ['CouriersSubmit', 'ManifestsCreate', 'ManifestStorageUpload', 'DocumentsUpload', 'DocumentsSupersede', 'AdminTariffImport'] as const;

/** One regular expression for the upload routes' paths (path parameters as one segment), as the web ACL matches the URI path. */
export function uploadPathPattern(routes: readonly RouteDef[] = catalogRoutes): string {
  const paths = uploadRoutes.map((id) => {
    const route = routes.find((r) => r.id === id);
    if (!route) throw new Error(`uploadRoutes names ${id}, which the catalog has not`);
    return fullPath(route).replace(/[.+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
  });
  return `^(${[...new Set(paths)].join('|')})$`;
}

/** Hosted zone of the configuration, when it names one. */
function zoneOf(scope: Construct, settings: StageSettings): route53.IHostedZone | undefined {
  const { hostedZoneId, hostedZoneName } = settings.config;
  return hostedZoneId && hostedZoneName ? route53.HostedZone.fromHostedZoneAttributes(scope, 'Zone', { hostedZoneId, zoneName: hostedZoneName }) : undefined;
}

/** The configured certificate, or a new one validated by DNS (in the zone when given; by hand otherwise). */
function certificateOf(scope: Construct, settings: StageSettings, domainName: string, zone: route53.IHostedZone | undefined): acm.ICertificate {
  if (settings.config.certificateArn) return acm.Certificate.fromCertificateArn(scope, 'Certificate', settings.config.certificateArn);
  return new acm.Certificate(scope, 'Certificate', { domainName, validation: acm.CertificateValidation.fromDns(zone) });
}

export interface EdgeStackProps extends StackProps {
  settings: StageSettings;
}

/**
 * What CloudFront reads only in us-east-1: the web ACL (scope CLOUDFRONT), its log group, and the
 * domain's certificate. The api stack references them across regions.
 */
export class EdgeStack extends Stack {
  readonly webAclArn: string;
  readonly certificate?: acm.ICertificate;

  constructor(scope: Construct, id: string, props: EdgeStackProps) {
    super(scope, id, { ...props, crossRegionReferences: true });
    const { settings } = props;
    // The managed rule groups count rather than block while the stage's wafManagedRules is
    // `count` (every stage's default, lib/stages.ts); the rate limit per IP blocks in either.
    const enforce = settings.config.wafManagedRules === 'block';
    const managed = (name: string, priority: number, counted: readonly string[] = []): wafv2.CfnWebACL.RuleProperty => ({
      name,
      priority,
      statement: {
        managedRuleGroupStatement: {
          vendorName: 'AWS',
          name,
          ...(counted.length ? { ruleActionOverrides: counted.map((n) => ({ name: n, actionToUse: { count: {} } })) } : {}),
        },
      },
      overrideAction: enforce ? { none: {} } : { count: {} },
      visibilityConfig: { sampledRequestsEnabled: true, cloudWatchMetricsEnabled: true, metricName: name },
    });
    const acl = new wafv2.CfnWebACL(this, 'WebAcl', {
      name: webAclName(settings),
      description: `Despacho ${settings.stage}: managed rules ${enforce ? 'blocking' : 'counting'}, and a rate limit per IP in front of the API`,
      scope: 'CLOUDFRONT',
      defaultAction: { allow: {} },
      visibilityConfig: { sampledRequestsEnabled: true, cloudWatchMetricsEnabled: true, metricName: webAclName(settings) },
      rules: [
        {
          name: 'RatePerIp',
          priority: 0,
          statement: { rateBasedStatement: { limit: edgeLimits.requestsPerIpPer5Minutes, aggregateKeyType: 'IP', evaluationWindowSec: 300 } },
          action: { block: { customResponse: { responseCode: 429 } } },
          visibilityConfig: { sampledRequestsEnabled: true, cloudWatchMetricsEnabled: true, metricName: 'RatePerIp' },
        },
        managed('AWSManagedRulesAmazonIpReputationList', 1),
        // SizeRestrictions_BODY blocks bodies over 8 KB: the API takes manifests and documents up
        // to 10 MB, whose size the functions check themselves (413), so that rule only counts.
        // The body rules (wafBodyRules) only label and count inside the groups; the rule after
        // them refuses what they matched, except on the upload routes, whose bodies are files.
        managed('AWSManagedRulesCommonRuleSet', 2, ['SizeRestrictions_BODY', ...wafBodyRules.filter((r) => r.group === 'AWSManagedRulesCommonRuleSet').map((r) => r.rule)]),
        managed('AWSManagedRulesKnownBadInputsRuleSet', 3, wafBodyRules.filter((r) => r.group === 'AWSManagedRulesKnownBadInputsRuleSet').map((r) => r.rule)),
        {
          name: 'BodyRulesOutsideUploads',
          priority: 4,
          statement: {
            andStatement: {
              statements: [
                { orStatement: { statements: wafBodyRules.map((r) => ({ labelMatchStatement: { scope: 'LABEL', key: r.label } })) } },
                { notStatement: { statement: { regexMatchStatement: { fieldToMatch: { uriPath: {} }, regexString: uploadPathPattern(), textTransformations: [{ priority: 0, type: 'NONE' }] } } } },
              ],
            },
          },
          action: enforce ? { block: {} } : { count: {} },
          visibilityConfig: { sampledRequestsEnabled: true, cloudWatchMetricsEnabled: true, metricName: 'BodyRulesOutsideUploads' },
        },
      ],
    });
    this.webAclArn = acl.attrArn;

    // WAF logs every request it sees (allowed, counted, blocked) to a group whose name starts aws-waf-logs-.
    const wafLogs = new logs.LogGroup(this, 'WafLogs', {
      logGroupName: `aws-waf-logs-${settings.namePrefix}`,
      retention: settings.logRetention,
      removalPolicy: settings.logRemovalPolicy,
    });
    new wafv2.CfnLoggingConfiguration(this, 'WafLogging', {
      resourceArn: acl.attrArn,
      logDestinationConfigs: [Stack.of(this).formatArn({ service: 'logs', resource: 'log-group', resourceName: wafLogs.logGroupName, arnFormat: ArnFormat.COLON_RESOURCE_NAME })],
      redactedFields: [{ singleHeader: { Name: 'authorization' } }],
    });

    if (settings.config.domainName) this.certificate = certificateOf(this, settings, settings.config.domainName, zoneOf(this, settings));
  }
}

export interface ApiEdgeProps {
  settings: StageSettings;
  api: apigwv2.HttpApi;
  stage: apigwv2.HttpStage;
  /** The us-east-1 stack with the web ACL and certificate, when edge protection is on. */
  edge?: EdgeStack;
}

/**
 * How clients reach the API: CloudFront with the web ACL in front of it and the API's own
 * origin domain behind it, reachable by CloudFront alone (edge protection on), or
 * an API Gateway custom domain (a domain name without edge protection), or the API's own
 * execute-api address. `url` is the address to give clients.
 */
export class ApiEdge extends Construct {
  readonly url: string;
  /** The value CloudFront adds as X-Origin-Verify; the authorizer refuses a request without it (behind the origin's mutual TLS). */
  readonly originVerify?: string;
  readonly distribution?: cloudfront.Distribution;

  constructor(scope: Construct, id: string, props: ApiEdgeProps) {
    super(scope, id);
    const { settings, api, stage, edge } = props;
    const domainName = settings.config.domainName;
    const zone = zoneOf(this, settings);
    if (edge) {
      const { originClientCertificateArn, originTruststoreUri } = settings.config;
      if (!domainName || !originClientCertificateArn || !originTruststoreUri) {
        throw new Error('edge protection needs domainName, originClientCertificateArn and originTruststoreUri (lib/stage.ts refuses a configuration without them)');
      }
      // The API's execute-api endpoint is disabled (lib/api.ts): the only way in is this regional
      // custom domain, and its mutual TLS takes only a client certificate the truststore's CA
      // issued, which only CloudFront holds. A request that skips CloudFront fails the TLS
      // handshake: no route, authorizer or function sees it (docs/operators/deploy.md, "The edge").
      const originName = `origin.${domainName}`;
      const [truststoreBucket, ...truststoreKey] = originTruststoreUri.slice('s3://'.length).split('/');
      const originDomain = new apigwv2.DomainName(this, 'OriginDomain', {
        domainName: originName,
        certificate: new acm.Certificate(this, 'OriginCertificate', { domainName: originName, validation: acm.CertificateValidation.fromDns(zone) }),
        securityPolicy: apigwv2.SecurityPolicy.TLS_1_2,
        mtls: { bucket: s3.Bucket.fromBucketName(this, 'Truststore', truststoreBucket), key: truststoreKey.join('/') },
      });
      new apigwv2.ApiMapping(this, 'OriginMapping', { api, domainName: originDomain, stage });
      if (zone) {
        new route53.ARecord(this, 'OriginAlias', {
          zone,
          recordName: originName,
          target: route53.RecordTarget.fromAlias(new targets.ApiGatewayv2DomainProperties(originDomain.regionalDomainName, originDomain.regionalHostedZoneId)),
        });
      }
      new CfnOutput(Stack.of(this), 'OriginDomainTarget', {
        value: originDomain.regionalDomainName,
        description: `Where ${originName} points (a CNAME to add by hand when the stage has no hostedZoneId)`,
      });

      // A random value, kept in Secrets Manager and resolved by CloudFormation at deploy: CloudFront
      // sends it (replacing any value a viewer sends) and the authorizer compares it, a second lock
      // behind the mutual TLS, should the origin domain ever be reachable another way.
      const secret = new secrets.Secret(this, 'OriginVerify', {
        description: `${settings.namePrefix}: the header CloudFront adds so the API knows a request came through the edge`,
        generateSecretString: { excludePunctuation: true, passwordLength: 48 },
        removalPolicy: RemovalPolicy.DESTROY,
      });
      acknowledge(secret, 'AwsSolutions-SMG4', 'Rotating it would refuse requests until CloudFront and the authorizer both redeploy; it proves the path, not an identity (docs/operators/deploy.md, "The edge").');
      this.originVerify = SecretValue.secretsManager(secret.secretArn).unsafeUnwrap();
      const origin = new origins.HttpOrigin(originName, {
        protocolPolicy: cloudfront.OriginProtocolPolicy.HTTPS_ONLY,
        originSslProtocols: [cloudfront.OriginSslPolicy.TLS_V1_2],
        customHeaders: { 'X-Origin-Verify': this.originVerify },
      });
      this.distribution = new cloudfront.Distribution(this, 'Distribution', {
        comment: `Despacho ${settings.stage} API`,
        defaultBehavior: {
          origin,
          allowedMethods: cloudfront.AllowedMethods.ALLOW_ALL,
          viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
          cachePolicy: cloudfront.CachePolicy.CACHING_DISABLED,
          originRequestPolicy: cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
        },
        webAclId: edge.webAclArn,
        minimumProtocolVersion: cloudfront.SecurityPolicyProtocol.TLS_V1_2_2021,
        httpVersion: cloudfront.HttpVersion.HTTP2_AND_3,
        priceClass: cloudfront.PriceClass.PRICE_CLASS_ALL,
        ...(edge.certificate ? { domainNames: [domainName], certificate: edge.certificate } : {}),
      });
      // The CDK's HttpOrigin has no client certificate yet: CloudFormation's OriginMtlsConfig.
      (this.distribution.node.defaultChild as cloudfront.CfnDistribution).addPropertyOverride('DistributionConfig.Origins.0.CustomOriginConfig.OriginMtlsConfig', {
        ClientCertificateArn: originClientCertificateArn,
      });
      acknowledge(this.distribution, 'AwsSolutions-CFR1', 'Partners call from abroad (couriers in the US, Europe and Asia): no geo restriction; the web ACL filters by behaviour.');
      acknowledge(this.distribution, 'AwsSolutions-CFR3', "The web ACL logs every request CloudFront passes it (aws-waf-logs-*) and the API stage logs every request it answers: CloudFront's own access log would be a third copy.");
      if (zone) new route53.ARecord(this, 'Alias', { zone, recordName: domainName, target: route53.RecordTarget.fromAlias(new targets.CloudFrontTarget(this.distribution)) });
      this.url = `https://${domainName}`;
    } else if (domainName) {
      const certificate = certificateOf(this, settings, domainName, zone);
      const custom = new apigwv2.DomainName(this, 'Domain', { domainName, certificate, securityPolicy: apigwv2.SecurityPolicy.TLS_1_2 });
      new apigwv2.ApiMapping(this, 'Mapping', { api, domainName: custom, stage });
      if (zone) {
        new route53.ARecord(this, 'Alias', {
          zone,
          recordName: domainName,
          target: route53.RecordTarget.fromAlias(new targets.ApiGatewayv2DomainProperties(custom.regionalDomainName, custom.regionalHostedZoneId)),
        });
      }
      this.url = `https://${domainName}`;
    } else {
      this.url = api.apiEndpoint;
    }
    new CfnOutput(Stack.of(this), 'PublicUrl', { value: this.url, description: 'Where clients call the API (its domain, CloudFront, or execute-api)' });
  }
}

