import { Aws, CfnOutput, Duration, RemovalPolicy, Stack, TimeZone, type StackProps } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as secrets from 'aws-cdk-lib/aws-secretsmanager';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import { SqsSendMessage } from 'aws-cdk-lib/aws-scheduler-targets';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { eventRules, queues } from '#catalog';
import type { EventRuleDef, QueueDef, QueueName } from '#catalog/types';
import { syncCron } from '#core/orders/sync-schedule';
import { rateRetryEveryMinutes } from '#core/customs/exchange-rate';
import { tableSchema } from '#infra/table-schema';
import { TableBackup, tableBackupByStage } from './backup';
import { acknowledge } from './nag';
import type { StageSettings } from './stage';

/**
 * Physical names of the stateful resources, derived from the stage alone. The API stack builds
 * its wildcard ARNs (`table/<name>/index/*`, `<bucket>/*`, `schedule/<group>/*`) from these rather
 * than from cross-stack imports, so the ARNs read plainly in IAM and their cdk-nag findings can
 * be acknowledged by exact id.
 */
/** How often the carriers' tracking is polled (issue 18): carriers update scans every few minutes to hours. */
export const trackingPollEveryMinutes = 30;

export function dataNames(settings: StageSettings) {
  return {
    table: settings.namePrefix,
    bus: settings.namePrefix,
    scheduleGroup: settings.namePrefix,
    /** The recurring schedule that ticks the marketplace sync, in the stage's schedule group. */
    marketplaceSyncSchedule: `${settings.namePrefix}-marketplace-sync`,
    /** The recurring schedule that ticks the carriers' tracking poll (issue 18). */
    trackingPollSchedule: `${settings.namePrefix}-tracking-poll`,
    /** The recurring schedule that asks the BCRA again for the days batches wait for (issue 44). */
    exchangeRateRetrySchedule: `${settings.namePrefix}-exchange-rate-retry`,
    /**
     * MARKETPLACE_SECRET_PREFIX: the functions create the secrets themselves, named
     * `<prefix>/marketplace/<accountId>/<channel>` (lambdas/infra/marketplace-credentials.ts).
     * They are not CloudFormation resources, so no stack deletion removes them.
     */
    secretPrefix: settings.namePrefix,
    /** The signing-secrets key's alias (issue 31): for operators; the functions get the key's ARN. */
    signingSecretsKeyAlias: `alias/${settings.namePrefix}-signing-secrets`,
    /** Bucket names are global: account and region make them unique per deployment. */
    filesBucket: `${settings.namePrefix}-files-${Aws.ACCOUNT_ID}-${Aws.REGION}`,
    /** The proofs of delivery (issue 44), under Object Lock. */
    proofsBucket: `${settings.namePrefix}-proofs-${Aws.ACCOUNT_ID}-${Aws.REGION}`,
  };
}

export interface CatalogQueue {
  def: QueueDef;
  queue: sqs.Queue;
  deadLetterQueue: sqs.Queue;
}

export interface DataStackProps extends StackProps {
  settings: StageSettings;
  queueDefs?: Record<string, QueueDef>;
  eventRuleDefs?: EventRuleDef[];
  /** Origins whose browsers may POST large files straight to the files bucket (presigned POST). */
  corsOrigins?: string[];
}

/**
 * The stateful half of a stage: the single table, the files bucket (and its access-log bucket),
 * the domain event bus, one SQS queue with its DLQ per catalog queue, the rules that route bus
 * events to queues, and the EventBridge Scheduler role and group for durable timers.
 *
 * The event rules live here rather than with the functions: a rule's SQS target writes the
 * queue's resource policy, so a rule in the API stack would make the two stacks depend on
 * each other.
 */
export class DataStack extends Stack {
  readonly settings: StageSettings;
  readonly names: ReturnType<typeof dataNames>;
  readonly table: dynamodb.Table;
  /** Seals the webhook and manifest signing secrets the table's items hold (issue 31). */
  readonly signingSecretsKey: kms.Key;
  /** Signs the page cursors the API answers (lambdas/infra/cursors.ts). */
  readonly cursorKey: secrets.Secret;
  readonly filesBucket: s3.Bucket;
  /** The proofs of delivery: Object Lock, COMPLIANCE, `proofRetentionYears` (issue 44). */
  readonly proofsBucket: s3.Bucket;
  readonly accessLogsBucket: s3.Bucket;
  readonly bus: events.EventBus;
  readonly queues: Record<QueueName, CatalogQueue>;
  readonly schedulerRole: iam.Role;
  readonly scheduleGroup: scheduler.ScheduleGroup;
  /** The recurring marketplace-sync tick (absent only when a test's queueDefs leave out marketplaceSync). */
  readonly marketplaceSyncSchedule?: scheduler.Schedule;
  readonly marketplaceSyncScheduleRole?: iam.Role;
  /** The recurring tracking-poll tick (absent only when a test's queueDefs leave out trackingPoll). */
  readonly trackingPollSchedule?: scheduler.Schedule;
  /** The recurring exchange-rate retry tick (absent only when a test's queueDefs leave out exchangeRateRetry). */
  readonly exchangeRateRetrySchedule?: scheduler.Schedule;
  /** The table's daily AWS Backup plan (prod only: `tableBackupByStage` in lib/backup.ts). */
  readonly tableBackup?: TableBackup;

  constructor(scope: Construct, id: string, props: DataStackProps) {
    super(scope, id, props);
    // Grant S3 log delivery through a bucket policy, not the legacy ACL, whatever cdk.json says
    // (set before any child exists, as setContext requires).
    this.node.setContext('@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy', true);
    const { settings } = props;
    this.settings = settings;
    this.names = dataNames(settings);
    const prod = settings.stage === 'prod';

    // --- Table -------------------------------------------------------------------------------
    // Point-in-time recovery is on in every stage (it costs little and dev data is handy to
    // restore); only prod retains the table when it is removed from the stack, dev and staging
    // are disposable and get DESTROY.
    this.table = new dynamodb.Table(this, 'Table', {
      tableName: this.names.table,
      partitionKey: { name: tableSchema.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: tableSchema.sortKey, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: tableSchema.ttlAttribute,
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: prod,
      removalPolicy: settings.dataRemovalPolicy,
    });
    for (const index of tableSchema.indexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: { name: index.partitionKey, type: dynamodb.AttributeType.STRING },
        sortKey: { name: index.sortKey, type: dynamodb.AttributeType.STRING },
        projectionType: dynamodb.ProjectionType.ALL,
      });
    }

    // --- Signing secrets key (issue 31) ---------------------------------------------------------
    // Webhook subscriptions' HMAC secrets and partner accounts' manifest signing secrets are
    // stored in the table as KMS ciphertext under this customer managed key (lambdas/infra/
    // sealed-secrets.ts), so GetItem on the table no longer reads them: only the functions whose
    // catalog entry lists `signingSecrets` may Encrypt or Decrypt, each only for the purposes it
    // names (lib/functions.ts). Yearly automatic rotation: KMS keeps every earlier key material,
    // so ciphertexts sealed before a rotation still open. The key policy is the CDK's default
    // (the account's root, so IAM policies decide). Kept with the table (prod retains both): a key
    // deleted with the data still in a backup would leave those secrets unreadable.
    this.signingSecretsKey = new kms.Key(this, 'SigningSecretsKey', {
      description: `Seals the ${settings.namePrefix} webhook and manifest signing secrets kept in the table`,
      alias: this.names.signingSecretsKeyAlias,
      enableKeyRotation: true,
      removalPolicy: settings.dataRemovalPolicy,
      pendingWindow: Duration.days(prod ? 30 : 7),
    });

    // --- Cursor key (issue 41) ------------------------------------------------------------------
    // The page cursors the API answers are signed with it (lambdas/infra/cursors.ts): only the
    // functions whose catalog entry lists `cursors` read it (GetSecretValue, once per instance).
    // Not rotated: a rotation refuses every cursor then outstanding (a client lists again from the
    // first page); the key proves a cursor was this stage's, not an identity.
    this.cursorKey = new secrets.Secret(this, 'CursorKey', {
      description: `Signs the ${settings.namePrefix} API's page cursors`,
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      removalPolicy: settings.dataRemovalPolicy,
    });
    acknowledge(this.cursorKey, 'AwsSolutions-SMG4', 'A rotation would refuse every page cursor outstanding; the key proves a cursor was this stage\'s, not an identity (docs/partners/errors-and-limits.md).');

    // --- Buckets -----------------------------------------------------------------------------
    // Server access logs of the files bucket go to a bucket of their own (S3-managed keys: the
    // log delivery service cannot write to KMS-encrypted targets). cdk-nag's S1 accepts a bucket
    // that is another bucket's log destination, so this one needs no acknowledgment.
    this.accessLogsBucket = new s3.Bucket(this, 'AccessLogs', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [{ id: 'expire-access-logs', expiration: settings.accessLogExpiration }],
      removalPolicy: settings.dataRemovalPolicy,
    });

    // Dev and staging buckets are DESTROY without autoDeleteObjects (that would add a custom
    // resource Lambda): empty them before `cdk destroy`. prod retains and versions its files.
    this.filesBucket = new s3.Bucket(this, 'Files', {
      bucketName: this.names.filesBucket,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      versioned: settings.versionedFiles,
      serverAccessLogsBucket: this.accessLogsBucket,
      serverAccessLogsPrefix: 'files/',
      // Browsers POST large documents straight here with a presigned policy, and download with
      // presigned GETs; the policy, not CORS, decides what may be written.
      cors: [
        {
          allowedMethods: [s3.HttpMethods.POST, s3.HttpMethods.GET],
          allowedOrigins: props.corsOrigins ?? ['*'],
          allowedHeaders: ['*'],
          maxAge: 3000,
        },
      ],
      lifecycleRules: [
        { id: 'abort-incomplete-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
        ...(settings.versionedFiles
          ? [{ id: 'expire-noncurrent-versions', noncurrentVersionExpiration: settings.noncurrentVersionExpiration }]
          : []),
      ],
      removalPolicy: settings.dataRemovalPolicy,
    });

    // The proofs of delivery (issue 44): a bucket of their own, under Object Lock in COMPLIANCE mode
    // with a default retention of the stage's proofRetentionYears (5), so every object written is
    // locked as it lands: no role of the service, nor the account's root user, overwrites or
    // deletes a version before then, and the retention cannot be shortened. Kept whatever the stage
    // (a locked bucket cannot be emptied), and never served to browsers directly but by signed GETs.
    this.proofsBucket = new s3.Bucket(this, 'Proofs', {
      bucketName: this.names.proofsBucket,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      versioned: true,
      objectLockEnabled: true,
      serverAccessLogsBucket: this.accessLogsBucket,
      serverAccessLogsPrefix: 'proofs/',
      cors: [{ allowedMethods: [s3.HttpMethods.GET], allowedOrigins: props.corsOrigins ?? ['*'], allowedHeaders: ['*'], maxAge: 3000 }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    // Years, not the CDK's days: S3 counts a year as the calendar's, so five years are five years.
    (this.proofsBucket.node.defaultChild as s3.CfnBucket).objectLockConfiguration = {
      objectLockEnabled: 'Enabled',
      rule: { defaultRetention: { mode: 'COMPLIANCE', years: settings.config.proofRetentionYears } },
    };
    new CfnOutput(this, 'ProofsBucketName', { value: this.proofsBucket.bucketName });

    // The table and the files (AWS Backup for S3 needs the bucket versioned: where it is not, only the table).
    const backupSchedule = tableBackupByStage[settings.stage];
    if (backupSchedule) {
      this.tableBackup = new TableBackup(this, 'TableBackup', { settings, table: this.table, files: settings.versionedFiles ? this.filesBucket : undefined, schedule: backupSchedule });
    }

    // --- Events ------------------------------------------------------------------------------
    this.bus = new events.EventBus(this, 'Bus', { eventBusName: this.names.bus });

    // --- Queues ------------------------------------------------------------------------------
    const made = {} as Record<QueueName, CatalogQueue>;
    for (const [name, def] of Object.entries(props.queueDefs ?? queues) as [QueueName, QueueDef][]) {
      const deadLetterQueue = new sqs.Queue(this, `${pascal(name)}Dlq`, {
        encryption: sqs.QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        retentionPeriod: Duration.days(14),
        removalPolicy: RemovalPolicy.DESTROY,
      });
      const queue = new sqs.Queue(this, `${pascal(name)}Queue`, {
        encryption: sqs.QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        visibilityTimeout: Duration.seconds(def.visibilityTimeoutSeconds),
        retentionPeriod: Duration.days(4),
        deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: def.maxReceiveCount },
        removalPolicy: RemovalPolicy.DESTROY,
      });
      made[name] = { def, queue, deadLetterQueue };
    }
    this.queues = made;

    for (const rule of props.eventRuleDefs ?? eventRules) {
      const target = this.queues[rule.queue];
      if (!target) throw new Error(`Event rule ${rule.id} targets unknown queue ${rule.queue}`);
      new events.Rule(this, `${pascal(rule.id)}Rule`, {
        eventBus: this.bus,
        description: `${rule.eventTypes.join(', ')} -> ${rule.queue}`,
        eventPattern: { detailType: [...rule.eventTypes] },
        targets: [new targets.SqsQueue(target.queue, { deadLetterQueue: target.deadLetterQueue })],
      });
    }

    // --- Durable timers ----------------------------------------------------------------------
    // SQS delays stop at 15 minutes; longer retries are one-time EventBridge Scheduler schedules
    // in this group whose target is a catalog queue, sent with this role.
    this.scheduleGroup = new scheduler.ScheduleGroup(this, 'Timers', {
      scheduleGroupName: this.names.scheduleGroup,
      removalPolicy: settings.dataRemovalPolicy,
    });
    this.schedulerRole = new iam.Role(this, 'SchedulerRole', {
      description: `EventBridge Scheduler sends durable timers of ${settings.namePrefix} to its queues`,
      assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID } },
      }),
    });
    const queueArns = Object.values<CatalogQueue>(this.queues).map((q) => q.queue.queueArn);
    if (queueArns.length > 0) {
      this.schedulerRole.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: queueArns }));
    }

    // --- Scheduled marketplace sync -----------------------------------------------------------
    // A recurring schedule puts `{"kind":"scheduled"}` on the marketplace-sync queue on the clock
    // (UTC, syncCron of the stage's interval, the same boundaries `next_scheduled_sync` reports);
    // the MarketplaceSync worker then starts one sync per connected account. It has a role of its
    // own that may only send to that one queue (the timers' role above reaches every queue). The
    // queue is SSE-SQS encrypted, so no KMS permission is needed (SqsSendMessage would add
    // kms:Decrypt/GenerateDataKey* on the queue's key if it had a customer managed one).
    const syncQueue = (this.queues as Partial<Record<QueueName, CatalogQueue>>).marketplaceSync;
    if (syncQueue) {
      this.marketplaceSyncScheduleRole = new iam.Role(this, 'MarketplaceSyncScheduleRole', {
        description: `EventBridge Scheduler sends the scheduled marketplace sync tick of ${settings.namePrefix} to its queue`,
        assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', {
          conditions: {
            StringEquals: {
              'aws:SourceAccount': Aws.ACCOUNT_ID,
              // Scheduler's source is the schedule group (its docs: never a schedule's ARN).
              'aws:SourceArn': this.formatArn({ service: 'scheduler', resource: 'schedule-group', resourceName: this.names.scheduleGroup }),
            },
          },
        }),
      });
      const everyMinutes = settings.orderSyncEveryMinutes;
      this.marketplaceSyncSchedule = new scheduler.Schedule(this, 'MarketplaceSyncSchedule', {
        scheduleName: this.names.marketplaceSyncSchedule,
        scheduleGroup: this.scheduleGroup,
        description: `Scheduled marketplace sync of ${settings.namePrefix}, every ${everyMinutes} min on the clock (UTC)`,
        schedule: scheduler.ScheduleExpression.expression(syncCron(everyMinutes), TimeZone.ETC_UTC),
        timeWindow: scheduler.TimeWindow.off(),
        target: new SqsSendMessage(syncQueue.queue, {
          role: this.marketplaceSyncScheduleRole,
          input: scheduler.ScheduleTargetInput.fromObject({ kind: 'scheduled' }),
          // A tick older than one interval is superseded by the next one; no dead-letter queue
          // (it would widen the role), a missed tick costs at most one interval's delay.
          maxEventAge: Duration.minutes(everyMinutes),
          retryAttempts: 10,
        }),
      });
      // The group is named literally (no reference), so CloudFormation needs the order spelled out.
      this.marketplaceSyncSchedule.node.addDependency(this.scheduleGroup);
    }

    // --- Scheduled tracking poll (issue 18) -------------------------------------------------
    // Every trackingPollEveryMinutes on the clock, `{"kind":"scheduled"}` on the tracking-poll queue; the
    // TrackingPoll worker asks the carriers for the shipments still moving. Its role may only
    // send to that one queue, like the sync's.
    const pollQueue = (this.queues as Partial<Record<QueueName, CatalogQueue>>).trackingPoll;
    if (pollQueue) {
      const role = new iam.Role(this, 'TrackingPollScheduleRole', {
        description: `EventBridge Scheduler sends the tracking-poll tick of ${settings.namePrefix} to its queue`,
        assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', {
          conditions: {
            StringEquals: {
              'aws:SourceAccount': Aws.ACCOUNT_ID,
              'aws:SourceArn': this.formatArn({ service: 'scheduler', resource: 'schedule-group', resourceName: this.names.scheduleGroup }),
            },
          },
        }),
      });
      this.trackingPollSchedule = new scheduler.Schedule(this, 'TrackingPollSchedule', {
        scheduleName: this.names.trackingPollSchedule,
        scheduleGroup: this.scheduleGroup,
        description: `The carriers' tracking poll of ${settings.namePrefix}, every ${trackingPollEveryMinutes} min on the clock (UTC)`,
        // A cron on the clock like the sync's (the cloud lane evaluates cron and at(), not rate()).
        schedule: scheduler.ScheduleExpression.expression(syncCron(trackingPollEveryMinutes), TimeZone.ETC_UTC),
        timeWindow: scheduler.TimeWindow.off(),
        target: new SqsSendMessage(pollQueue.queue, {
          role,
          input: scheduler.ScheduleTargetInput.fromObject({ kind: 'scheduled' }),
          maxEventAge: Duration.minutes(trackingPollEveryMinutes),
          retryAttempts: 10,
        }),
      });
      this.trackingPollSchedule.node.addDependency(this.scheduleGroup);
    }

    // --- Scheduled exchange-rate retry (issue 44) ------------------------------------------
    // Every rateRetryEveryMinutes on the clock, `{"kind":"scheduled"}` on the exchange-rate retry
    // queue; the ExchangeRateRetry worker asks the BCRA again for the days batches wait for. Its
    // role may only send to that one queue, like the poll's.
    const retryQueue = (this.queues as Partial<Record<QueueName, CatalogQueue>>).exchangeRateRetry;
    if (retryQueue) {
      const role = new iam.Role(this, 'ExchangeRateRetryScheduleRole', {
        description: `EventBridge Scheduler sends the exchange-rate retry tick of ${settings.namePrefix} to its queue`,
        assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', {
          conditions: {
            StringEquals: {
              'aws:SourceAccount': Aws.ACCOUNT_ID,
              'aws:SourceArn': this.formatArn({ service: 'scheduler', resource: 'schedule-group', resourceName: this.names.scheduleGroup }),
            },
          },
        }),
      });
      this.exchangeRateRetrySchedule = new scheduler.Schedule(this, 'ExchangeRateRetrySchedule', {
        scheduleName: this.names.exchangeRateRetrySchedule,
        scheduleGroup: this.scheduleGroup,
        description: `The exchange-rate retry of ${settings.namePrefix}: the BCRA asked again for the days batches wait for, every ${rateRetryEveryMinutes} min on the clock (UTC)`,
        schedule: scheduler.ScheduleExpression.expression(syncCron(rateRetryEveryMinutes), TimeZone.ETC_UTC),
        timeWindow: scheduler.TimeWindow.off(),
        target: new SqsSendMessage(retryQueue.queue, {
          role,
          input: scheduler.ScheduleTargetInput.fromObject({ kind: 'scheduled' }),
          // A tick older than one interval is superseded by the next one.
          maxEventAge: Duration.minutes(rateRetryEveryMinutes),
          retryAttempts: 10,
        }),
      });
      this.exchangeRateRetrySchedule.node.addDependency(this.scheduleGroup);
    }

    new CfnOutput(this, 'TableName', { value: this.table.tableName });
    new CfnOutput(this, 'SigningSecretsKeyArn', { value: this.signingSecretsKey.keyArn });
    new CfnOutput(this, 'FilesBucketName', { value: this.filesBucket.bucketName });
    new CfnOutput(this, 'EventBusName', { value: this.bus.eventBusName });
    new CfnOutput(this, 'ScheduleGroupName', { value: this.scheduleGroup.scheduleGroupName });
  }
}

/** `webhookFanout` -> `WebhookFanout` (construct ids). */
export function pascal(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}
