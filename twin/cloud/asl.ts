/*
 * Amazon States Language definitions as the cloud lane and the tests run them in aws-local-stepfunctions.
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

/** Every state of a definition, those of Map item processors and Parallel branches included, by name. */
export function allStates(asl: Asl): [string, AslState][] {
  return Object.entries(asl.States).flatMap(([name, state]): [string, AslState][] => [
    [name, state],
    ...(state.ItemProcessor ? allStates(state.ItemProcessor) : []),
    ...(state.Branches ?? []).flatMap(allStates),
  ]);
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


/**
 * The error Step Functions reports for a Lambda function's error (lambda:invoke and a plain
 * function ARN alike): Error is the function's error type, Cause the JSON Lambda returned.
 */
export function taskError(lambda: { errorType: string; errorMessage: string; trace?: string[] }): Error {
  const e = new Error(JSON.stringify({ errorMessage: lambda.errorMessage, errorType: lambda.errorType, trace: lambda.trace ?? [] }));
  e.name = lambda.errorType;
  return e;
}
