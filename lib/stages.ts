/**
 * Each stage's settings, in one place. `cdk synth|deploy -c stage=<name>` starts from the entry
 * below and `-c key=value` overrides any key (lib/stage.ts reads, checks and merges them; every
 * key is also the name of its `-c` flag). A devops team fills in its accounts here (or passes
 * them with `-c`), commits, and the pipeline deploys what this file says.
 *
 * Nothing here may be a literal the synthesized templates repeat unless it was given: a stage
 * without `account` and `region` synthesizes environment-agnostic (the templates read
 * `AWS::AccountId` and `AWS::Region`); prod refuses to synthesize without them.
 */
export interface StageConfig {
  /** The AWS account the stage deploys to (12 digits). Required for prod. */
  account?: string;
  /** The AWS region (e.g. sa-east-1). Required for prod. */
  region?: string;
  /**
   * The API's own host name (api.example.com). With edge protection on, CloudFront answers on it;
   * otherwise an API Gateway custom domain with an API mapping does.
   */
  domainName?: string;
  /**
   * An existing ACM certificate for `domainName` (in us-east-1 when edge protection is on, since
   * CloudFront reads certificates only there; in the stage's region otherwise). Without it the
   * stage creates one, validated by DNS: in `hostedZoneId` when given (automatic), otherwise the
   * deploy waits until someone adds the CNAME that ACM shows for the domain.
   */
  certificateArn?: string;
  /** A Route 53 hosted zone for `domainName`: the certificate is validated in it and an alias record points the name at the API. */
  hostedZoneId?: string;
  /** The zone's name (example.com); required with `hostedZoneId`. */
  hostedZoneName?: string;
  /** Origins allowed by CORS on the API and the files bucket; `*` allows any (refused in prod). */
  corsOrigins: string[];
  /** Who receives the stage's alarms (each confirms the SNS e-mail subscription). */
  alarmEmails: string[];
  /** An existing SNS topic to notify instead of (or beside) the e-mails, e.g. the on-call tool's. */
  alarmTopicArn?: string;
  /** Days every log group keeps its logs (one of CloudWatch's allowed values). */
  logRetentionDays: number;
  /** X-Ray active tracing on the functions and the state machine. */
  tracing: boolean;
  /**
   * Share of requests traced beyond the first each second (0 to 1), as an X-Ray sampling rule
   * over the stage's services. Lambda samples its own invocations (1 a second and 5%): the rule
   * governs the state machine and any SDK-sampled segment.
   */
  tracingSampleRate: number;
  /**
   * CloudFront with AWS WAF in front of the HTTP API (managed common rules, a rate limit per IP).
   * On, the API's execute-api endpoint is disabled and CloudFront reaches the API at
   * `origin.<domainName>`, a regional custom domain that accepts only CloudFront's client
   * certificate (mutual TLS): it needs `domainName`, `originClientCertificateArn` and
   * `originTruststoreUri` (docs/operators/deploy.md, "The edge").
   */
  edgeProtection: boolean;
  /**
   * The client certificate CloudFront presents to the API's origin domain: an ACM certificate in
   * us-east-1 (imported, with the clientAuth extended key usage), issued by a CA of the truststore.
   */
  originClientCertificateArn?: string;
  /** The truststore of the origin domain's mutual TLS: `s3://bucket/key` of a PEM bundle of the CA that issued the client certificate, in the stage's region. */
  originTruststoreUri?: string;
  /**
   * Reserved concurrency for the functions a flood could starve or spend (lib/api.ts
   * `floodLimits`; docs/operators/deploy.md, "Throttles and reserved concurrency"): the authorizer
   * keeps its share whatever else runs, and the public routes and `$default` cannot take more than
   * theirs. Needs an account concurrency quota of at least `floodLimits.accountQuotaAtLeast`; a new
   * account's quota (10) refuses it, so dev leaves it off.
   */
  reservedConcurrency: boolean;
  /**
   * What the web ACL's AWS managed rule groups do with a request they match: `count` (they label
   * and count it, WAF logs it, nothing is refused) or `block`. Every stage starts in `count`: a
   * managed rule that refused a real manifest, workbook or PDF would be a silent 403, so switch to
   * `block` once the counted matches in the WAF log are understood (docs/operators/deploy.md,
   * "WAF managed rules: count, then block"). The rate limit per IP blocks in either.
   */
  wafManagedRules: 'count' | 'block';
  /**
   * How a new version of a function takes traffic (lib/rollout.ts): `canary`, CodeDeploy shifts
   * each function's `live` alias by the kind's canary and rolls back on its alarms; `all-at-once`,
   * the alias moves at once (dev, where nobody's traffic judges a version and every push deploys).
   */
  rollout: 'canary' | 'all-at-once';
  /**
   * The smoke test's webhook receiver (lib/smoke-receiver.ts): a function URL that keeps what is
   * POSTed to `/<uuid>` for an hour and answers it on GET, for `npm run smoke -- --receiver-url`.
   * On in staging, where the pipeline's smoke test runs; off elsewhere.
   */
  smokeReceiver: boolean;
  /**
   * Where the operator docs are read, ending in `/` (e.g.
   * `https://github.com/<org>/<repo>/blob/main/docs/operators/`): every alarm's description links
   * its runbook entry under it. Unset, the synth takes GitHub Actions' repository
   * (GITHUB_SERVER_URL/GITHUB_REPOSITORY, branch main) and otherwise writes the repository path.
   */
  docsBaseUrl?: string;
  /** HTTPS endpoints subscribed to the alarm topics (a pager's SNS integration URL, e.g. PagerDuty's or Opsgenie's). */
  alarmHttpsEndpoints: string[];
  /** The account's Lambda concurrency quota: the account-concurrency alarm fires at 80% of it claimed. */
  accountConcurrencyQuota: number;
  /**
   * An AWS Backup vault in another region or account (its ARN) where every recovery point of the
   * stage's backup plan is copied. Its access policy must let this account copy into it
   * (docs/operators/runbook.md, "Restore drill").
   */
  backupCopyVaultArn?: string;
  /** Days each copy is kept in `backupCopyVaultArn`. */
  backupCopyRetentionDays: number;
  /** A monthly AWS Budget for the account, USD (unset: no budget); it notifies at 80% forecast and 100% actual. */
  budgetMonthlyUsd?: number;
  /** Who the budget e-mails (besides the alarm topic it notifies). */
  budgetEmails: string[];
  /**
   * Years each proof of delivery is kept under S3 Object Lock in COMPLIANCE mode (issue 44): RG
   * ARCA 5631/2025 asks for five. Nobody, the account's root user included, shortens it once set.
   */
  proofRetentionYears: number;
}

export const stageNames = ['dev', 'staging', 'prod'] as const;
export type StageName = (typeof stageNames)[number];

export const stageConfigs: Record<StageName, StageConfig> = {
  dev: {
    corsOrigins: ['*'],
    alarmEmails: [],
    logRetentionDays: 30,
    tracing: true,
    tracingSampleRate: 1,
    edgeProtection: false,
    reservedConcurrency: false,
    wafManagedRules: 'count',
    rollout: 'all-at-once',
    smokeReceiver: false,
    alarmHttpsEndpoints: [],
    accountConcurrencyQuota: 1000,
    backupCopyRetentionDays: 35,
    budgetEmails: [],
    proofRetentionYears: 5,
  },
  staging: {
    // prod's settings (issue 43): the pipeline deploys staging and smoke-tests it before it offers
    // prod. account, region, corsOrigins, an alarm subscriber and the domain's zone are the
    // deploying team's to give, as for prod. Its own: logs kept 90 days, backup copies 35.
    corsOrigins: [],
    alarmEmails: [],
    logRetentionDays: 90,
    tracing: true,
    tracingSampleRate: 0.05,
    edgeProtection: true,
    reservedConcurrency: true,
    wafManagedRules: 'count',
    rollout: 'canary',
    smokeReceiver: true,
    alarmHttpsEndpoints: [],
    accountConcurrencyQuota: 1000,
    backupCopyRetentionDays: 35,
    budgetEmails: [],
    proofRetentionYears: 5,
  },
  prod: {
    // account, region, corsOrigins and an alarm subscriber are the deploying team's to give
    // (here or with -c); prod refuses to synthesize without them.
    corsOrigins: [],
    alarmEmails: [],
    logRetentionDays: 365,
    tracing: true,
    tracingSampleRate: 0.05,
    edgeProtection: true,
    reservedConcurrency: true,
    wafManagedRules: 'count',
    rollout: 'canary',
    smokeReceiver: false,
    alarmHttpsEndpoints: [],
    accountConcurrencyQuota: 1000,
    backupCopyRetentionDays: 90,
    budgetEmails: [],
    proofRetentionYears: 5,
  },
};
