/**
 * `npm start`: the whole service on this machine, offline. DynamoDB Local (the real engine),
 * local blobs with signed URLs, in-process events, queues and timers persisted in the table.
 * DYNAMO_ENDPOINT uses a DynamoDB already running instead of starting DynamoDB Local (the
 * benchmarks run the service in its own process against theirs); TABLE_NAME names the table.
 */
import { stopOnSignal } from './stop-on-signal';
import { startTwin } from '#twin/twin';
import { closeToOthers } from '#twin/private-files';

const started = Date.now();
// What the twin writes (DynamoDB Local's database, blobs, sealing keys) is its user's alone:
// files 0600 and folders 0700, DynamoDB Local's included (a child inherits the umask).
process.umask(0o077);
closeToOthers(process.env.DATA_DIR ?? '.data');
process.env.LOG_LEVEL ??= 'INFO';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const twin = await startTwin({
  port: Number(process.env.PORT ?? 3000),
  host: process.env.HOST ?? '127.0.0.1',
  dataDir: process.env.DATA_DIR ?? '.data',
  adminToken: process.env.ADMIN_TOKEN || undefined,
  dynamoEndpoint: process.env.DYNAMO_ENDPOINT || undefined,
  tableName: process.env.TABLE_NAME || undefined,
}).catch((err: Error) => {
  console.error(`Despacho could not start: ${err.message}`);
  process.exit(1);
});

console.log(`Despacho is ready on ${twin.apiUrl} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
console.log(`  health:  ${twin.apiUrl}/health`);
console.log(`  openapi: ${twin.apiUrl}/openapi.json`);
console.log(`  console: ${twin.url}/console`);
console.log(`  webhook dashboard: ${twin.url}/dashboard`);
console.log(`  fake carriers (fedex, ups, dhl, usps): ${twin.carriers.baseUrl}`);
if (process.env.ADMIN_TOKEN) console.log('  admin token: the value of ADMIN_TOKEN');

stopOnSignal(() => twin.stop());
