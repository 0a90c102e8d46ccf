import { Duration, TimeZone } from 'aws-cdk-lib';
import * as backup from 'aws-cdk-lib/aws-backup';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { acknowledge } from './nag';
import type { StageName, StageSettings } from './stage';

/** When AWS Backup copies the table and how long each copy is kept. */
export interface TableBackupSchedule {
  /** UTC hour of the daily backup (05:00 UTC is 02:00 in Buenos Aires, the quietest hour). */
  hourUtc: number;
  /** Days each daily recovery point is kept before AWS Backup deletes it. */
  retentionDays: number;
}

/**
 * The table's AWS Backup plan per stage: staging and prod (staging is prod, issue 43; its points kept 35 days). Point-in-time recovery (35 days, to the
 * second) is on in every stage regardless (lib/data.ts); the daily backups are copies outside the
 * table that survive its deletion and an error noticed too late for point-in-time recovery.
 */
export const tableBackupByStage: Record<StageName, TableBackupSchedule | undefined> = {
  dev: undefined,
  staging: { hourUtc: 5, retentionDays: 35 },
  prod: { hourUtc: 5, retentionDays: 35 },
};

export interface TableBackupProps {
  settings: StageSettings;
  table: dynamodb.ITable;
  /** The files bucket, backed up by the same plan (AWS Backup for S3 needs it versioned). */
  files?: s3.IBucket;
  schedule: TableBackupSchedule;
}

/** The name of the rule that matches the stage's failed backup and copy jobs (lib/observability.ts alarms on it). */
export const failedJobsRuleName = (settings: StageSettings) => `${settings.namePrefix}-backup-jobs-failed`;

/**
 * A daily AWS Backup plan for the table and the files bucket: its own vault (encrypted with a customer managed key
 * that rotates; recovery points cannot be deleted by hand, only by the plan's lifecycle), one rule
 * and a selection each of the table and the bucket by their ARNs. With the stage's
 * `backupCopyVaultArn`, every recovery point is also copied to that vault, in another region or
 * account, kept `backupCopyRetentionDays`: a copy that survives the loss of this account or region.
 * A rule matches the stage's backup and copy jobs that fail. The vault and its key follow the stage's
 * `dataRemovalPolicy` (prod retains them: a vault that holds recovery points cannot be deleted
 * anyway).
 */
export class TableBackup extends Construct {
  readonly vault: backup.BackupVault;
  readonly key: kms.Key;
  readonly plan: backup.BackupPlan;
  readonly selection: backup.BackupSelection;
  readonly filesSelection?: backup.BackupSelection;
  /** Backup and copy jobs that failed, were aborted or expired (AWS Backup's EventBridge events). */
  readonly failedJobsRule: events.Rule;

  constructor(scope: Construct, id: string, props: TableBackupProps) {
    super(scope, id);
    const { settings, table, files, schedule } = props;
    const copyVault = settings.config.backupCopyVaultArn;
    this.key = new kms.Key(this, 'VaultKey', {
      description: `Encrypts the ${settings.namePrefix} table backups`,
      enableKeyRotation: true,
      removalPolicy: settings.dataRemovalPolicy,
    });
    this.vault = new backup.BackupVault(this, 'Vault', {
      backupVaultName: `${settings.namePrefix}-table`,
      encryptionKey: this.key,
      blockRecoveryPointDeletion: true,
      removalPolicy: settings.dataRemovalPolicy,
    });
    this.plan = new backup.BackupPlan(this, 'Plan', {
      backupPlanName: `${settings.namePrefix}-table`,
      backupVault: this.vault,
      backupPlanRules: [
        new backup.BackupPlanRule({
          ruleName: 'Daily',
          scheduleExpression: events.Schedule.cron({ hour: String(schedule.hourUtc), minute: '0' }),
          scheduleExpressionTimezone: TimeZone.ETC_UTC,
          startWindow: Duration.hours(1),
          completionWindow: Duration.hours(4),
          deleteAfter: Duration.days(schedule.retentionDays),
          copyActions: copyVault
            ? [{ destinationBackupVault: backup.BackupVault.fromBackupVaultArn(this, 'CopyVault', copyVault), deleteAfter: Duration.days(settings.config.backupCopyRetentionDays) }]
            : undefined,
        }),
      ],
    });
    // The selection's role gets AWS Backup's service-role policies (backup, and restore so the same
    // role serves a restore): AWS documents them as the way to give AWS Backup its permissions.
    this.selection = this.plan.addSelection('Table', {
      backupSelectionName: `${settings.namePrefix}-table`,
      resources: [backup.BackupResource.fromArn(table.tableArn)],
      allowRestores: true,
    });
    const managed = (scope: Construct, policies: string[]) => {
      for (const policy of policies) {
        acknowledge(
          scope,
          `AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/${policy}]`,
          `AWS Backup's service role takes the AWS managed ${policy}, the way AWS Backup's documentation gives it its permissions (they follow the services AWS Backup supports).`,
        );
      }
    };
    managed(this.selection, ['AWSBackupServiceRolePolicyForBackup', 'AWSBackupServiceRolePolicyForRestores']);
    if (files) {
      // AWS Backup for S3 has policies of its own (it reads every version and the bucket's
      // notifications); the selection's role takes them beside the general ones.
      this.filesSelection = this.plan.addSelection('Files', {
        backupSelectionName: `${settings.namePrefix}-files`,
        resources: [backup.BackupResource.fromArn(files.bucketArn)],
        allowRestores: true,
      });
      const role = this.filesSelection.grantPrincipal as iam.Role;
      for (const policy of ['AWSBackupServiceRolePolicyForS3Backup', 'AWSBackupServiceRolePolicyForS3Restore']) {
        role.addManagedPolicy(iam.ManagedPolicy.fromAwsManagedPolicyName(policy));
      }
      managed(this.filesSelection, ['AWSBackupServiceRolePolicyForBackup', 'AWSBackupServiceRolePolicyForRestores']);
      for (const policy of ['AWSBackupServiceRolePolicyForS3Backup', 'AWSBackupServiceRolePolicyForS3Restore']) {
        acknowledge(this.filesSelection, `AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/${policy}]`, `AWS Backup for S3 takes the AWS managed ${policy}, as its documentation gives it.`);
      }
    }
    this.failedJobsRule = new events.Rule(this, 'FailedJobs', {
      ruleName: failedJobsRuleName(settings),
      description: `AWS Backup backup and copy jobs of ${settings.namePrefix} that failed, were aborted or expired`,
      eventPattern: {
        source: ['aws.backup'],
        detailType: ['Backup Job State Change', 'Copy Job State Change'],
        detail: { state: ['FAILED', 'ABORTED', 'EXPIRED'] },
      },
    });
  }
}
