import type { TestProject } from 'vitest/node';
import { longRun, startDynamoLocal, type RunningDynamo } from '#twin/dynamodb-local';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

let dynamo: RunningDynamo | undefined;

/**
 * One DynamoDB Local (in memory) for the whole run; each test file makes its own table in it. It
 * serves every file's writes for the whole run, so it runs with the full JIT (`longRun`), not the
 * quick start a twin's own engine takes.
 * With AWS_ENDPOINT_URL set (LocalStack), the suite runs against that endpoint instead.
 */
export async function setup(project: TestProject) {
  const external = process.env.AWS_ENDPOINT_URL_DYNAMODB ?? process.env.AWS_ENDPOINT_URL;
  if (external) {
    project.provide('dynamoEndpoint', external);
    return;
  }
  dynamo = await startDynamoLocal({ jvmOptions: longRun });
  project.provide('dynamoEndpoint', dynamo.endpoint);
}

export async function teardown() {
  await dynamo?.stop();
}
