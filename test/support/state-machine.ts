import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Template } from 'aws-cdk-lib/assertions';
import { pipelineTasks } from '../../lambdas/catalog';
import { projectRoot } from '../../lib/functions';
import { lambdaContext } from '../../twin/jobs';
import { stageApp, stateMachineDefinitions } from './cdk';

/*
 * The manifest pipeline's state machine as CDK synthesizes it, executed by an ASL interpreter
 * no one on the team wrote (aws-local-stepfunctions), with each Task bound to the real handler of
 * the function the template gives it, invoked in-process the way Lambda would: the payload and
 * the result go through JSON (so an `undefined` field is absent, as in AWS), a thrown error comes
 * back as the Lambda error Step Functions sees (Error: the error type; Cause: the JSON of
 * errorMessage, errorType and stackTrace).
 */

// aws-local-stepfunctions 3 targets Node 22 and uses Promise.withResolvers in its Task states;
// Node 20 (this machine's) lacks it. The polyfill is the specification's, nothing more.
const promiseStatics = Promise as unknown as { withResolvers?: () => unknown };
promiseStatics.withResolvers ??= function withResolvers<T>() {
  let resolve!: (value: T) => void;
  let reject!: (reason?: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
};

export type Asl = { StartAt: string; States: Record<string, AslState> };
export type AslState = {
  Type: string;
  Resource?: string;
  Parameters?: Record<string, any>;
  ItemSelector?: Record<string, any>;
  ItemsPath?: string;
  ItemProcessor?: Asl & { ProcessorConfig?: { Mode?: string } };
  Branches?: Asl[];
  Choices?: any[];
  Retry?: unknown[];
  Catch?: { ErrorEquals: string[]; ResultPath?: string | null; Next: string }[];
  ResultPath?: string | null;
  OutputPath?: string;
  ResultSelector?: Record<string, any>;
  Next?: string;
  Default?: string;
  End?: boolean;
};

/** The pipeline's synthesized definition (the dev stage; the stages differ only in names) and the handler module of each Task state. */
export function synthesizedPipeline(): { definition: Asl; handlers: Record<string, string> } {
  const built = stageApp('dev', { nag: false });
  const template = Template.fromStack(built.api).toJSON() as { Resources: Record<string, { Type: string; Properties?: any }> };
  const definitions = Object.values(stateMachineDefinitions(template));
  if (definitions.length !== 1) throw new Error(`expected one state machine, found ${definitions.length}`);
  const definition = definitions[0] as Asl;
  const byFunctionName = new Map(Object.values(pipelineTasks).map((t) => [`${built.settings.namePrefix}-${t.id}`, t.handler]));
  const handlers: Record<string, string> = {};
  for (const [name, state] of allStates(definition)) {
    if (state.Type !== 'Task') continue;
    const arn = state.Resource!.includes(':states:::lambda:invoke') ? (state.Parameters!.FunctionName as string) : state.Resource!;
    const logicalId = /:function:([A-Za-z0-9]+)$/.exec(arn)?.[1];
    const fn = logicalId ? template.Resources[logicalId] : undefined;
    const handler = fn?.Type === 'AWS::Lambda::Function' ? byFunctionName.get(fn.Properties.FunctionName) : undefined;
    if (!handler) throw new Error(`Task ${name} invokes ${arn}, which is no pipeline function of the template`);
    handlers[name] = handler;
  }
  return { definition, handlers };
}

/** Every state of a definition, those of Map item processors and Parallel branches included, by name. */
export function allStates(asl: Asl): [string, AslState][] {
  return Object.entries(asl.States).flatMap(([name, state]): [string, AslState][] => [
    [name, state],
    ...(state.ItemProcessor ? allStates(state.ItemProcessor) : []),
    ...(state.Branches ?? []).flatMap(allStates),
  ]);
}

export interface TaskCall {
  state: string;
  /** The event the function received. */
  event: any;
  /** What it returned (after JSON), or the error it threw. */
  result?: unknown;
  error?: string;
}

/** The error Step Functions reports for a Lambda function's error (lambda:invoke and a plain function ARN alike). */
class LambdaFunctionError extends Error {
  constructor(err: Error) {
    super(JSON.stringify({ errorMessage: err.message, errorType: err.name, stackTrace: (err.stack ?? '').split('\n').slice(1).map((l) => l.trim()) }));
    this.name = err.name;
  }
}

const viaJson = (value: unknown) => (value === undefined ? null : JSON.parse(JSON.stringify(value)));

/**
 * The interpreter's local handler for each Task state: the handler module the template's function
 * runs, called in-process with the event Lambda would give it; every call is recorded in `calls`.
 */
export async function taskBindings(definition: Asl, handlers: Record<string, string>, calls: TaskCall[]): Promise<Record<string, (input: any) => Promise<unknown>>> {
  const states = new Map(allStates(definition));
  const out: Record<string, (input: any) => Promise<unknown>> = {};
  for (const [name, module] of Object.entries(handlers)) {
    const { handler } = (await import(pathToFileURL(join(projectRoot, 'lambdas', `${module}.ts`)).href)) as { handler: (event: unknown, context: unknown) => Promise<unknown> };
    const invokeApi = states.get(name)!.Resource!.includes(':states:::lambda:invoke');
    out[name] = async (input) => {
      const event = viaJson(invokeApi ? input.Payload : input);
      const call: TaskCall = { state: name, event };
      calls.push(call);
      try {
        call.result = viaJson(await handler(event, lambdaContext(module)));
      } catch (err) {
        call.error = (err as Error).message;
        throw new LambdaFunctionError(err as Error);
      }
      // lambda:invoke answers the invocation; a plain function ARN answers the payload alone.
      return invokeApi ? { ExecutedVersion: '$LATEST', Payload: call.result, StatusCode: 200 } : call.result;
    };
  }
  return out;
}

/**
 * The definition as the interpreter needs it, with the same meaning: aws-local-stepfunctions 3.0.0
 * reads `"ResultPath": "$"` as a field named `$` instead of the whole state (in Step Functions it
 * is the default: the result replaces the input), so that one value is dropped. Nothing else
 * changes.
 */
export function forInterpreter(definition: Asl): Asl {
  const copy = JSON.parse(JSON.stringify(definition)) as Asl;
  for (const [, state] of allStates(copy)) if (state.ResultPath === '$') delete state.ResultPath;
  return copy;
}

/** No waiting between retries (the back-off itself is checked on the definition). */
export function noRetryWaits(definition: Asl): Record<string, number> {
  return Object.fromEntries(allStates(definition).filter(([, s]) => s.Retry).map(([name]) => [name, 0]));
}
