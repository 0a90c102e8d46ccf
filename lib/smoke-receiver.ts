import { CfnOutput, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import type { DataStack } from './data';
import { CatalogFunction } from './functions';
import type { StageSettings } from './stage';

/** The receiver's ceiling: a smoke run sends a handful of deliveries; nobody else may spend more. */
export const smokeReceiverConcurrency = 2;

/**
 * The smoke test's webhook receiver, in a stage whose `smokeReceiver` is on (staging): the
 * function lambdas/http/smoke/receiver.ts behind a function URL without auth (a webhook sender
 * signs, it does not authenticate to the receiver), its URL in the `SmokeReceiverUrl` output that
 * the pipeline's smoke job reads. Its role may put and query the table's `smoke#*` items only, it
 * keeps each for an hour (the table's TTL), and it runs at most `smokeReceiverConcurrency` at once.
 */
export class SmokeReceiver extends Construct {
  readonly fn: CatalogFunction;
  readonly url: lambda.FunctionUrl;

  constructor(scope: Construct, id: string, props: { settings: StageSettings; data: DataStack }) {
    super(scope, id);
    const { settings, data } = props;
    this.fn = new CatalogFunction(this, 'Function', {
      def: { id: 'SmokeReceiver', handler: 'http/smoke/receiver', description: "The smoke test's webhook receiver: POST /<uuid> keeps a delivery an hour, GET answers it", timeoutSeconds: 5 },
      kind: 'http',
      settings,
      data,
    });
    (this.fn.fn.node.defaultChild as lambda.CfnFunction).reservedConcurrentExecutions = smokeReceiverConcurrency;
    const tableArn = Stack.of(this).formatArn({ service: 'dynamodb', resource: 'table', resourceName: data.names.table });
    this.fn.role.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['dynamodb:PutItem', 'dynamodb:Query'], resources: [tableArn], conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['smoke#*'] } } }),
    );
    this.url = this.fn.live.addFunctionUrl({ authType: lambda.FunctionUrlAuthType.NONE });
    new CfnOutput(Stack.of(this), 'SmokeReceiverUrl', { value: this.url.url, description: 'The smoke test receiver (npm run smoke -- --receiver-url)' });
  }
}
