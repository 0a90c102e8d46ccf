#!/usr/bin/env node
/**
 * CDK app: `cdk synth|deploy -c stage=<dev|staging|prod>` (default dev) builds that stage's
 * stacks, `Despacho-<stage>-data` and `Despacho-<stage>-api`, checked by cdk-nag.
 * Optional: `-c corsOrigins=https://app.example.com,https://admin.example.com` (default *), and
 * `-c alarmEmail=ops@example.com` (the stage's alarms are e-mailed there; confirm the subscription).
 * Read from the environment at synth (lib/stage.ts): DESPACHO_BEDROCK_MODEL_ID, and
 * DESPACHO_ORDER_SYNC_EVERY_MINUTES (5, 10, 15, 20, 30 or 60; default 60), DESPACHO_TRACING (on|off;
 * default on).
 */
import { App } from 'aws-cdk-lib';
import { buildApp, parseAlarmEmail, parseCorsOrigins } from '../lib/app';
import { parseStage } from '../lib/stage';

const app = new App();
try {
  const stage = parseStage(app.node.tryGetContext('stage'));
  buildApp(stage, {
    app,
    corsOrigins: parseCorsOrigins(app.node.tryGetContext('corsOrigins')),
    alarmEmail: parseAlarmEmail(app.node.tryGetContext('alarmEmail')),
  });
} catch (err) {
  console.error(`despacho: ${(err as Error).message}`);
  process.exit(1);
}
app.synth();
