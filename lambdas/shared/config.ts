/** Runtime settings, read from the environment the CDK (or the twin) sets. */
function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`Missing environment variable ${name}`);
  return value;
}

export const config = {
  tableName: () => required('TABLE_NAME'),
  bucketName: () => required('BUCKET_NAME'),
  busName: () => required('EVENT_BUS_NAME'),
  /** `QUEUE_URL_<NAME>` for each catalog queue the function sends to. */
  queueUrl: (name: string) => required(`QUEUE_URL_${name.replace(/[A-Z]/g, (c) => '_' + c).toUpperCase()}`),
  schedulerRoleArn: () => required('SCHEDULER_ROLE_ARN'),
  schedulerGroup: () => process.env.SCHEDULER_GROUP ?? 'default',
  stage: () => process.env.STAGE ?? 'local',
  /** Only the twin (stage local) may deliver webhooks to loopback and private addresses. */
  /**
   * Where webhooks may go (infra/forbidden-address.ts `WebhookReach`): `public` on every stage and
   * on the twin by default, as a deployed stage; `loopback` on the twin with
   * WEBHOOK_LOCAL_RECEIVERS=1 (a receiver on 127.0.0.1, plain http allowed; the suite sets it).
   */
  webhookReach: (): 'public' | 'loopback' => ((process.env.STAGE ?? 'local') === 'local' && process.env.WEBHOOK_LOCAL_RECEIVERS === '1' ? 'loopback' : 'public'),
  /** The twin's own HTTP port once it listens: a local receiver may not be the twin's own API. */
  twinPort: () => (process.env.TWIN_PORT ? Number(process.env.TWIN_PORT) : undefined),
  /** The manifest pipeline's state machine (set on the functions that start runs). */
  pipelineArn: () => required('PIPELINE_STATE_MACHINE_ARN'),
  corsOrigins: () => (process.env.CORS_ORIGINS ?? '*').split(',').map((s) => s.trim()),
  /** The Bedrock model the tariff classifier asks (`BEDROCK_MODEL_ID`); unset, it classifies offline. */
  bedrockModelId: () => process.env.BEDROCK_MODEL_ID?.trim() || undefined,
  /** The broker's search index is written with manifest items unless `SEARCH_INDEX=off` (bench:search's run without it). */
  searchIndex: () => process.env.SEARCH_INDEX !== 'off',
};
