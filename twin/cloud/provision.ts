import { CreateTableCommand, DynamoDBClient, UpdateTimeToLiveCommand, type CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import { CreateEventBusCommand, EventBridgeClient, PutRuleCommand, PutTargetsCommand } from '@aws-sdk/client-eventbridge';
import { CreateAliasCommand, CreateKeyCommand, EnableKeyRotationCommand, KMSClient } from '@aws-sdk/client-kms';
import { CreateBucketCommand, PutBucketCorsCommand, PutObjectLockConfigurationCommand, S3Client } from '@aws-sdk/client-s3';
import { CreateScheduleCommand, CreateScheduleGroupCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { CreateStateMachineCommand, SFNClient } from '@aws-sdk/client-sfn';
import { CreateQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import { CreateSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { randomBytes } from 'node:crypto';
import { pitrStream } from './pitr';
import type { Deployment } from './template';

/*
 * Creates the deployment's resources from its templates, as CloudFormation would: the table in
 * DynamoDB Local; KMS keys (with their policy and rotation) and aliases, buckets, queues (dead-letter queues first, then those that redrive to them),
 * the bus, its rules with their patterns and targets, the schedule group and schedules, and the
 * state machine in moto. Every name, attribute and setting is read from the template. Resource
 * types the lane has no engine for (IAM, logs, API Gateway, Lambda itself) are played by the lane
 * (gateway.ts, sandbox.ts) or not at all (IAM): see docs/developers/cloud-lane.md.
 */

export interface Clients {
  dynamo: DynamoDBClient;
  s3: S3Client;
  sqs: SQSClient;
  events: EventBridgeClient;
  scheduler: SchedulerClient;
  sfn: SFNClient;
  kms: KMSClient;
  secrets: SecretsManagerClient;
}

export function laneClients(region: string, servicesUrl: string, dynamoUrl: string): Clients {
  const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };
  const common = { region, credentials, endpoint: servicesUrl };
  return {
    dynamo: new DynamoDBClient({ region, credentials, endpoint: dynamoUrl }),
    s3: new S3Client({ ...common, forcePathStyle: true }),
    sqs: new SQSClient(common),
    events: new EventBridgeClient(common),
    scheduler: new SchedulerClient(common),
    sfn: new SFNClient(common),
    kms: new KMSClient(common),
    secrets: new SecretsManagerClient(common),
  };
}

/** Queue attributes CloudFormation sets from the template's properties (strings, as SQS takes them). */
const queueAttributes: Record<string, string> = {
  DelaySeconds: 'DelaySeconds',
  MaximumMessageSize: 'MaximumMessageSize',
  MessageRetentionPeriod: 'MessageRetentionPeriod',
  ReceiveMessageWaitTimeSeconds: 'ReceiveMessageWaitTimeSeconds',
  VisibilityTimeout: 'VisibilityTimeout',
  FifoQueue: 'FifoQueue',
  ContentBasedDeduplication: 'ContentBasedDeduplication',
  SqsManagedSseEnabled: 'SqsManagedSseEnabled',
};

export async function provision(d: Deployment, c: Clients): Promise<void> {
  // Keys first: a function's environment (SIGNING_SECRETS_KEY_ARN) and an alias name a key's ARN,
  // which KMS gives it when it is made.
  for (const r of d.resources('AWS::KMS::Key')) {
    const p = d.properties(r);
    const res = await c.kms.send(
      new CreateKeyCommand({
        Description: p.Description,
        KeyUsage: p.KeyUsage,
        KeySpec: p.KeySpec,
        Policy: p.KeyPolicy ? JSON.stringify(p.KeyPolicy) : undefined,
        Tags: (p.Tags as { Key: string; Value: string }[] | undefined)?.map((t) => ({ TagKey: t.Key, TagValue: t.Value })),
      }),
    );
    const KeyId = res.KeyMetadata!.KeyId!;
    d.assign(r, KeyId);
    if (p.EnableKeyRotation) await c.kms.send(new EnableKeyRotationCommand({ KeyId, RotationPeriodInDays: p.RotationPeriodInDays }));
  }
  // Secrets the stacks make (the cursor key), with a value generated as GenerateSecretString does;
  // a function's environment names each by its ARN, which Secrets Manager gives it when made.
  for (const r of d.resources('AWS::SecretsManager::Secret')) {
    const p = d.properties(r);
    const res = await c.secrets.send(new CreateSecretCommand({ Name: `${r.logicalId}-${randomBytes(4).toString('hex')}`, Description: p.Description, SecretString: randomBytes(32).toString('hex') }));
    d.assign(r, res.ARN!);
  }
  for (const r of d.resources('AWS::KMS::Alias')) {
    const p = d.properties(r);
    await c.kms.send(new CreateAliasCommand({ AliasName: p.AliasName, TargetKeyId: p.TargetKeyId }));
  }

  for (const r of d.resources('AWS::DynamoDB::Table')) {
    const p = d.properties(r);
    const input: CreateTableCommandInput = {
      TableName: d.physicalId(r),
      AttributeDefinitions: p.AttributeDefinitions,
      KeySchema: p.KeySchema,
      GlobalSecondaryIndexes: p.GlobalSecondaryIndexes,
      LocalSecondaryIndexes: p.LocalSecondaryIndexes,
      BillingMode: p.BillingMode,
      ProvisionedThroughput: p.ProvisionedThroughput,
      // DynamoDB Local has no point-in-time recovery: the lane plays it from a stream of its own (pitr.ts).
      StreamSpecification: p.StreamSpecification ?? (p.PointInTimeRecoverySpecification?.PointInTimeRecoveryEnabled ? pitrStream : undefined),
    };
    await c.dynamo.send(new CreateTableCommand(input)).catch((err: Error) => {
      if (err.name !== 'ResourceInUseException') throw err;
    });
    if (p.TimeToLiveSpecification?.Enabled) {
      await c.dynamo
        .send(new UpdateTimeToLiveCommand({ TableName: input.TableName, TimeToLiveSpecification: p.TimeToLiveSpecification }))
        .catch((err: Error) => {
          if (!/already enabled/i.test(err.message)) throw err;
        });
    }
  }

  for (const r of d.resources('AWS::S3::Bucket')) {
    const p = d.properties(r);
    const Bucket = d.physicalId(r);
    await c.s3.send(new CreateBucketCommand({ Bucket, ObjectLockEnabledForBucket: p.ObjectLockEnabled === true || undefined }));
    // The proofs of delivery's bucket (issue 44): its default retention, as CloudFormation sets it.
    const retention = p.ObjectLockConfiguration?.Rule?.DefaultRetention;
    if (retention) {
      await c.s3.send(
        new PutObjectLockConfigurationCommand({
          Bucket,
          ObjectLockConfiguration: { ObjectLockEnabled: 'Enabled', Rule: { DefaultRetention: { Mode: retention.Mode, Years: retention.Years, Days: retention.Days } } },
        }),
      );
    }
    if (p.CorsConfiguration) {
      // CloudFormation's CorsRule names, in the S3 API's.
      const CORSRules = (p.CorsConfiguration.CorsRules as Record<string, any>[]).map((rule) => ({
        ID: rule.Id,
        AllowedHeaders: rule.AllowedHeaders,
        AllowedMethods: rule.AllowedMethods,
        AllowedOrigins: rule.AllowedOrigins,
        ExposeHeaders: rule.ExposedHeaders,
        MaxAgeSeconds: rule.MaxAge,
      }));
      await c.s3.send(new PutBucketCorsCommand({ Bucket, CORSConfiguration: { CORSRules } }));
    }
  }

  // Dead-letter queues first: a redrive policy names a queue that must exist.
  const queues = d.resources('AWS::SQS::Queue');
  queues.sort((a, b) => Number(!!a.resource.Properties?.RedrivePolicy) - Number(!!b.resource.Properties?.RedrivePolicy));
  for (const r of queues) {
    const p = d.properties(r);
    const Attributes: Record<string, string> = {};
    for (const [prop, attr] of Object.entries(queueAttributes)) if (p[prop] !== undefined) Attributes[attr] = String(p[prop]);
    if (p.RedrivePolicy) Attributes.RedrivePolicy = JSON.stringify(p.RedrivePolicy);
    const res = await c.sqs.send(new CreateQueueCommand({ QueueName: d.queueName(r), Attributes }));
    d.assign(r, res.QueueUrl!);
  }

  for (const r of d.resources('AWS::Events::EventBus')) await c.events.send(new CreateEventBusCommand({ Name: d.physicalId(r) }));
  for (const r of d.resources('AWS::Events::Rule')) {
    const p = d.properties(r);
    await c.events.send(
      new PutRuleCommand({
        Name: d.physicalId(r),
        EventBusName: p.EventBusName,
        EventPattern: p.EventPattern ? JSON.stringify(p.EventPattern) : undefined,
        ScheduleExpression: p.ScheduleExpression,
        State: p.State,
        Description: p.Description,
      }),
    );
    if (p.Targets?.length) await c.events.send(new PutTargetsCommand({ Rule: d.physicalId(r), EventBusName: p.EventBusName, Targets: p.Targets }));
  }

  for (const r of d.resources('AWS::Scheduler::ScheduleGroup')) await c.scheduler.send(new CreateScheduleGroupCommand({ Name: d.physicalId(r) }));
  for (const r of d.resources('AWS::Scheduler::Schedule')) {
    const p = d.properties(r);
    await c.scheduler.send(new CreateScheduleCommand({ ...p, Name: d.physicalId(r) } as never));
  }

  for (const r of d.resources('AWS::StepFunctions::StateMachine')) {
    const p = d.properties(r);
    const name = d.physicalId(r).split(':').pop()!;
    const res = await c.sfn.send(
      new CreateStateMachineCommand({ name, definition: p.DefinitionString, roleArn: p.RoleArn, type: p.StateMachineType ?? 'STANDARD' }),
    );
    d.assign(r, res.stateMachineArn!);
  }
}
