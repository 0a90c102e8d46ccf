import type { TestProject } from 'vitest/node';
import { startDynamoLocal, type RunningDynamo } from '#twin/dynamodb-local';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

let dynamo: RunningDynamo | undefined;

/**
 * One DynamoDB Local (in memory) for the whole run; each test file makes its own table in it.
 * With AWS_ENDPOINT_URL set (LocalStack), the suite runs against that endpoint instead.
 */
export async function setup(project: TestProject) {
  const external = process.env.AWS_ENDPOINT_URL_DYNAMODB ?? process.env.AWS_ENDPOINT_URL;
  if (external) {
    project.provide('dynamoEndpoint', external);
    return;
  }
  dynamo = await startDynamoLocal();
  project.provide('dynamoEndpoint', dynamo.endpoint);
}

export async function teardown() {
  await dynamo?.stop();
}
