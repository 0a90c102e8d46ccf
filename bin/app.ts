#!/usr/bin/env node
/**
 * CDK app: `cdk synth|deploy -c stage=<dev|staging|prod>` (default dev) builds that stage's
 * stacks from its entry in lib/stages.ts; `-c key=value` overrides any setting there (account,
 * region, domainName, certificateArn, hostedZoneId, hostedZoneName, corsOrigins, alarmEmail,
 * alarmTopicArn, logRetentionDays, tracing, tracingSampleRate, edgeProtection). The reference prod synth:
 *
 *   npx cdk synth -c stage=prod -c account=111111111111 -c region=sa-east-1 \
 *     -c domainName=api.example.com -c alarmEmail=ops@example.com -c corsOrigins=https://console.example.com
 *
 * A stage that lacks what it requires fails with one message naming every missing setting.
 * Read from the environment at synth (lib/stage.ts): DESPACHO_BEDROCK_MODEL_ID, and
 * DESPACHO_ORDER_SYNC_EVERY_MINUTES (5, 10, 15, 20, 30 or 60; default 60), DESPACHO_TRACING (on|off).
 */
import { App } from 'aws-cdk-lib';
import { buildApp, contextOverrides } from '#lib/app';
import { parseStage } from '#lib/stage';

const app = new App();
try {
  buildApp(parseStage(app.node.tryGetContext('stage')), { app, overrides: contextOverrides(app) });
} catch (err) {
  console.error(`despacho: ${(err as Error).message}`);
  process.exit(1);
}
app.synth();
