/**
 * `npm run start:cloud`: the same API on the production adapters. `cdk synth` writes the templates
 * and Lambda bundles; moto_server (S3, SQS, EventBridge, Scheduler, Step Functions, Secrets
 * Manager) and DynamoDB Local get the resources the templates declare; each function runs from
 * its bundle with the environment its template gives it; a runner plays Lambda's SQS pollers,
 * Scheduler and Step Functions (aws-local-stepfunctions). See docs/developers/cloud-lane.md.
 * CLOUD_ASSEMBLY: a cdk.out already synthesized (skips the synth); CLOUD_STAGE: the stage (dev).
 */
import { stopOnSignal } from './stop-on-signal';
import { seedAdminToken } from '#services/auth/accounts';
import { startCloudLane } from '#twin/cloud/lane';

const started = Date.now();
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const verbose = process.env.CLOUD_LANE_VERBOSE === '1';

console.log(process.env.CLOUD_ASSEMBLY ? `Using the cloud assembly in ${process.env.CLOUD_ASSEMBLY}` : 'Synthesizing the stacks (cdk synth, esbuild bundles every function)...');
const lane = await startCloudLane({
  assemblyDir: process.env.CLOUD_ASSEMBLY || undefined,
  stage: process.env.CLOUD_STAGE || 'dev',
  port: Number(process.env.PORT ?? 3000),
  host: process.env.HOST ?? '127.0.0.1',
  logLevel: process.env.LOG_LEVEL ?? 'INFO',
  endpoint: process.env.AWS_ENDPOINT_URL || undefined,
  log: verbose ? (line) => console.log(line) : undefined,
}).catch((err: Error) => {
  console.error(`The cloud lane could not start: ${err.message}`);
  process.exit(1);
});

if (process.env.ADMIN_TOKEN) {
  await seedAdminToken(process.env.ADMIN_TOKEN, new Date().toISOString()).catch(async (err: Error) => {
    console.error(`The cloud lane could not start: ${err.message}`);
    await lane.stop();
    process.exit(1);
  });
}

console.log(`Despacho (cloud lane, ${lane.functions.specs.size} functions from their bundles) is ready on ${lane.apiUrl} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
console.log(`  ${process.env.AWS_ENDPOINT_URL ? 'AWS endpoint:  ' : 'moto_server:   '} ${lane.servicesUrl} (bucket ${lane.names.bucket}, bus ${lane.names.bus})`);
console.log(`  ${process.env.AWS_ENDPOINT_URL ? 'DynamoDB:      ' : 'DynamoDB Local:'} ${lane.dynamoUrl} (table ${lane.names.table})`);
if (lane.dynamoOperatorUrl !== lane.dynamoUrl) console.log(`  the runbook's aws dynamodb commands (point-in-time restore played): --endpoint-url ${lane.dynamoOperatorUrl}`);
if (process.env.ADMIN_TOKEN) console.log('  admin token: the value of ADMIN_TOKEN');

const faults = setInterval(() => {
  for (const f of lane.runner.faults.splice(0)) console.error(`lane fault at ${f.at}: ${f.what}`);
}, 1000);
faults.unref();

stopOnSignal(() => lane.stop());
