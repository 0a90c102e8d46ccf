import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { traced } from './tracing';

let client: DynamoDBDocumentClient | undefined;

/** One document client per process; endpoint and region come from the standard AWS env vars. */
export function documentClient(): DynamoDBDocumentClient {
  client ??= DynamoDBDocumentClient.from(traced(new DynamoDBClient({})), {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: true },
  });
  return client;
}

/** For the twin and tests, which start DynamoDB Local after modules load. */
export function resetDocumentClient(): void {
  client?.destroy();
  client = undefined;
}
