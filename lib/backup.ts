import { Duration, TimeZone } from 'aws-cdk-lib';
import * as backup from 'aws-cdk-lib/aws-backup';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as kms from 'aws-cdk-lib/aws-kms';
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
 * The table's AWS Backup plan per stage: prod only. Point-in-time recovery (35 days, to the
 * second) is on in every stage regardless (lib/data.ts); the daily backups are copies outside the
 * table that survive its deletion and an error noticed too late for point-in-time recovery.
 */
export const tableBackupByStage: Record<StageName, TableBackupSchedule | undefined> = {
  dev: undefined,
  staging: undefined,
  prod: { hourUtc: 5, retentionDays: 35 },
};

export interface TableBackupProps {
  settings: StageSettings;
  table: dynamodb.ITable;
  schedule: TableBackupSchedule;
}

/**
 * A daily AWS Backup plan for the table: its own vault (encrypted with a customer managed key
 * that rotates; recovery points cannot be deleted by hand, only by the plan's lifecycle), one rule
 * and a selection of the table by its ARN. The vault and its key follow the stage's
 * `dataRemovalPolicy` (prod retains them: a vault that holds recovery points cannot be deleted
 * anyway).
 */
export class TableBackup extends Construct {
  readonly vault: backup.BackupVault;
  readonly key: kms.Key;
  readonly plan: backup.BackupPlan;
  readonly selection: backup.BackupSelection;

  constructor(scope: Construct, id: string, props: TableBackupProps) {
    super(scope, id);
    const { settings, table, schedule } = props;
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
    for (const policy of ['AWSBackupServiceRolePolicyForBackup', 'AWSBackupServiceRolePolicyForRestores']) {
      acknowledge(
        this.selection,
        `AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/${policy}]`,
        `AWS Backup's service role takes the AWS managed ${policy}, the way AWS Backup's documentation gives it its permissions (they follow the services AWS Backup supports).`,
      );
    }
  }
}
