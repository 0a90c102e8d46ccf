import { CfnElement, Duration, Stack, Token } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';
import { pipelineTasks } from '#catalog';
import { stageSteps } from '#core/pipeline/stages';
import type { DataStack } from './data';
import { CatalogFunction } from './functions';
import { acknowledge, wildcardResourceFinding } from './nag';
import type { StageSettings } from './stage';

export interface PipelineProps {
  settings: StageSettings;
  data: DataStack;
}

/**
 * The manifest pipeline as a Step Functions state machine, built from `stageSteps` (declared
 * once, in lambdas/core/pipeline/stages.ts, and the twin walks the same steps):
 *
 *   Prepare -> (superseded? stop) -> for each step: per stage, a Map over the pages
 *   (PipelineStagePage) -> PipelineStageDone, the stages of a step side by side in a Parallel
 *   state -> ... -> PipelineFinish; any step that keeps failing -> PipelineFailed (told the stage, if a stage failed) -> Fail.
 *
 * Pages are item pages kept in S3; the Map iterates their numbers (a 100,000-item manifest is
 * 200 pages). It is a Distributed Map: each page runs as a child execution, so no run comes near
 * a standard execution's history limit, whatever the manifest's size.
 */
export class ManifestPipeline extends Construct {
  readonly stateMachine: sfn.StateMachine;
  readonly functions: Record<keyof typeof pipelineTasks, CatalogFunction>;

  constructor(scope: Construct, id: string, props: PipelineProps) {
    super(scope, id);
    const { settings, data } = props;
    this.functions = Object.fromEntries(
      Object.entries(pipelineTasks).map(([key, def]) => [key, new CatalogFunction(this, def.id, { def: { ...def, description: def.summary }, kind: 'worker', settings, data })]),
    ) as Record<keyof typeof pipelineTasks, CatalogFunction>;
    const fns = this.functions;

    // Three attempts in all, as the twin's runner makes them: MaxAttempts counts the retries.
    const retry = (task: tasks.LambdaInvoke) =>
      task.addRetry({ errors: ['States.ALL'], interval: Duration.seconds(2), backoffRate: 2, maxAttempts: 2, maxDelay: Duration.seconds(60) });
    const run = { 'accountId.$': '$.accountId', 'batchId.$': '$.batchId', 'runId.$': '$.runId' };

    /**
     * The Catch path: marks the manifest failed (with the stage that failed, when one did) and
     * ends the run in a Fail state. The task gets the whole caught error, `{ Error, Cause }`: a
     * Catch output need not have a Cause, and a Lambda error's Cause is the JSON of its
     * errorMessage, errorType and stack trace; the failed handler keeps the message.
     */
    const markFailed = (id: string, stage?: string) =>
      new tasks.LambdaInvoke(this, id, {
        lambdaFunction: fns.failed.live,
        payload: sfn.TaskInput.fromObject({ ...run, ...(stage ? { stage } : {}), 'error.$': '$.error' }),
        resultPath: sfn.JsonPath.DISCARD,
      });
    const processingFailed = 'ManifestProcessingFailed';
    const fail = new sfn.Fail(this, 'Failed', { error: processingFailed });
    const failed = markFailed('MarkFailed').next(fail);
    const onError = (state: tasks.LambdaInvoke | sfn.DistributedMap | sfn.Parallel, handler: sfn.IChainable = failed) =>
      state.addCatch(handler, { errors: ['States.ALL'], resultPath: '$.error' });

    const prepare = new tasks.LambdaInvoke(this, 'Prepare', { lambdaFunction: fns.prepare.live, payloadResponseOnly: true, resultPath: '$' });
    retry(prepare);
    onError(prepare);

    /**
     * One stage: a Map over the pages, then the stage's close; either one failing for good marks
     * the manifest failed with this stage. Inside a Parallel branch the branch then fails with
     * ManifestProcessingFailed, which the Parallel state passes to the Fail state unmarked again.
     */
    const stageChain = (stage: string, inParallel: boolean) => {
      const page = new tasks.LambdaInvoke(this, `${stage}Page`, {
        lambdaFunction: fns.stagePage.live,
        payload: sfn.TaskInput.fromObject({ ...run, stage, 'page.$': '$.page' }),
        resultPath: sfn.JsonPath.DISCARD,
      });
      retry(page);
      const map = new sfn.DistributedMap(this, `${stage}Pages`, {
        itemsPath: '$.pages',
        itemSelector: { ...run, 'page.$': '$$.Map.Item.Value' },
        maxConcurrency: 10,
        resultPath: sfn.JsonPath.DISCARD,
        mapExecutionType: sfn.StateMachineType.STANDARD,
      });
      map.itemProcessor(page);
      const done = new tasks.LambdaInvoke(this, `${stage}Done`, {
        lambdaFunction: fns.stageDone.live,
        payload: sfn.TaskInput.fromObject({ ...run, stage, 'pages.$': '$.pages' }),
        resultPath: sfn.JsonPath.DISCARD,
      });
      retry(done);
      const markStage = markFailed(`${stage}Failed`, stage).next(inParallel ? new sfn.Fail(this, `${stage}Stopped`, { error: processingFailed }) : fail);
      onError(map, markStage);
      onError(done, markStage);
      map.next(done);
      return { head: map, tail: done };
    };

    let chain: sfn.INextable & sfn.IChainable = prepare;
    let head: sfn.IChainable | undefined;
    stageSteps.forEach((stages, i) => {
      let step: { head: sfn.IChainable; tail: sfn.INextable & sfn.IChainable };
      if (stages.length === 1) step = stageChain(stages[0], false);
      else {
        const parallel = new sfn.Parallel(this, `Step${i + 1}`, { resultPath: sfn.JsonPath.DISCARD });
        for (const stage of stages) {
          parallel.branch(stageChain(stage, true).head);
        }
        parallel.addCatch(fail, { errors: [processingFailed] });
        onError(parallel);
        step = { head: parallel, tail: parallel };
      }
      if (!head) head = step.head;
      else (chain as sfn.INextable).next(step.head);
      chain = step.tail;
    });
    const finish = new tasks.LambdaInvoke(this, 'Finish', { lambdaFunction: fns.finish.live, payload: sfn.TaskInput.fromObject({ ...run, 'pages.$': '$.pages', 'coversAll.$': '$.coversAll' }), resultPath: sfn.JsonPath.DISCARD });
    retry(finish);
    onError(finish);
    (chain as sfn.INextable).next(finish).next(new sfn.Succeed(this, 'Completed'));

    const definition = prepare.next(
      // Prepare's answer has `superseded` only when a newer run superseded this one; a Choice rule
      // on a path that is not there fails the run (States.Runtime), so the rule asks first.
      new sfn.Choice(this, 'Superseded?')
        .when(sfn.Condition.and(sfn.Condition.isPresent('$.superseded'), sfn.Condition.booleanEquals('$.superseded', true)), new sfn.Succeed(this, 'SupersededRun'))
        .otherwise(head!),
    );

    const logGroup = new logs.LogGroup(this, 'Logs', { retention: settings.logRetention, removalPolicy: settings.logRemovalPolicy });
    this.stateMachine = new sfn.StateMachine(this, 'StateMachine', {
      stateMachineName: `${settings.namePrefix}-manifest-pipeline`,
      definitionBody: sfn.DefinitionBody.fromChainable(definition),
      tracingEnabled: true,
      logs: { destination: logGroup, level: sfn.LogLevel.ALL, includeExecutionData: false },
      timeout: Duration.hours(6),
    });
    const why = {
      children: "The Distributed Map starts, describes and stops its own child executions (<state machine>:* executions); nothing else.",
      xray: 'Active X-Ray tracing: xray:PutTraceSegments, PutTelemetryRecords and GetSampling* support no resource-level permissions.',
    };
    const machineId = Stack.of(this).getLogicalId(this.stateMachine.node.defaultChild as CfnElement);
    const name = `{"Fn::Select":[6,{"Fn::Split":[":",{"Ref":"${machineId}"}]}]}`;
    // The ARN names the stack's region and account as CloudFormation references, or as their
    // values when the synth knows them (the CLI with a configured region): cdk-nag prints either.
    const stack = Stack.of(this);
    const region = Token.isUnresolved(stack.region) ? '<AWS::Region>' : stack.region;
    const account = Token.isUnresolved(stack.account) ? '<AWS::AccountId>' : stack.account;
    for (const tail of [':*', '/*:*']) {
      acknowledge(this.stateMachine, `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:states:${region}:${account}:execution:${name}${tail}]`, why.children);
    }
    acknowledge(this.stateMachine, 'AwsSolutions-IAM5[Resource::*]', why.xray);
  }

  /** Lets a function start runs: the ARN in its environment and states:StartExecution on this state machine only. */
  allowStart(fn: CatalogFunction): void {
    fn.fn.addEnvironment('PIPELINE_STATE_MACHINE_ARN', this.stateMachine.stateMachineArn);
    fn.role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['states:StartExecution'], resources: [this.stateMachine.stateMachineArn] }));
  }
}
