import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Template } from 'aws-cdk-lib/assertions';
import { pipelineTasks } from '#catalog';
import { projectRoot } from '#lib/functions';
import { lambdaContext } from '#twin/jobs';
import { stageApp, stateMachineDefinitions } from './cdk';
import { allStates, taskError, type Asl, type AslState } from '#twin/cloud/asl';

export { allStates, forInterpreter, type Asl, type AslState } from '#twin/cloud/asl';

/*
 * The manifest pipeline's state machine as CDK synthesizes it, executed by an ASL interpreter
 * no one on the team wrote (aws-local-stepfunctions), with each Task bound to the real handler of
 * the function the template gives it, invoked in-process the way Lambda would: the payload and
 * the result go through JSON (so an `undefined` field is absent, as in AWS), a thrown error comes
 * back as the Lambda error Step Functions sees (Error: the error type; Cause: the JSON of
 * errorMessage, errorType and stackTrace).
 */

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
    const named = logicalId ? template.Resources[logicalId] : undefined;
    // The tasks call their function's live alias (lib/rollout.ts): the function behind it.
    const fn = named?.Type === 'AWS::Lambda::Alias' ? template.Resources[named.Properties.FunctionName.Ref] : named;
    const handler = fn?.Type === 'AWS::Lambda::Function' ? byFunctionName.get(fn.Properties.FunctionName) : undefined;
    if (!handler) throw new Error(`Task ${name} invokes ${arn}, which is no pipeline function of the template`);
    handlers[name] = handler;
  }
  return { definition, handlers };
}

export interface TaskCall {
  state: string;
  /** The event the function received. */
  event: any;
  /** What it returned (after JSON), or the error it threw. */
  result?: unknown;
  error?: string;
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
        throw taskError({ errorType: (err as Error).name, errorMessage: (err as Error).message, trace: ((err as Error).stack ?? '').split('\n') });
      }
      // lambda:invoke answers the invocation; a plain function ARN answers the payload alone.
      return invokeApi ? { ExecutedVersion: '$LATEST', Payload: call.result, StatusCode: 200 } : call.result;
    };
  }
  return out;
}

/** No waiting between retries (the back-off itself is checked on the definition). */
export function noRetryWaits(definition: Asl): Record<string, number> {
  return Object.fromEntries(allStates(definition).filter(([, s]) => s.Retry).map(([name]) => [name, 0]));
}

// ---------------------------------------------------------------------------------------------
// The same data flow, statically: the handlers' declared types against the definition's paths.

/** Top-level fields of a JSON object type: name -> whether it may be missing. */
export type Fields = Map<string, { optional: boolean }>;

export interface DeclaredHandler {
  /** The event type's fields. */
  input: Fields;
  /** The fields of what the promise resolves to (empty for void). */
  output: Fields;
}

/**
 * The declared event and result types of each handler module's `handler` (lambdas/<module>.ts),
 * and of `typeName` in `typeModule` (the execution input), read with the TypeScript compiler.
 */
export async function declaredTypes(modules: string[], execution: { module: string; typeName: string }): Promise<{ handlers: Record<string, DeclaredHandler>; execution: Fields }> {
  const ts = (await import('typescript')).default;
  const file = (m: string) => join(projectRoot, 'lambdas', `${m}.ts`);
  const program = ts.createProgram([...modules, execution.module].map(file), {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    types: ['node'],
  });
  const checker = program.getTypeChecker();
  const fieldsOf = (type: import('typescript').Type): Fields =>
    new Map(
      checker
        .getApparentType(type)
        .getProperties()
        .map((p) => [p.name, { optional: (p.flags & ts.SymbolFlags.Optional) !== 0 }]),
    );
  const exportsOf = (m: string) => {
    const source = program.getSourceFile(file(m));
    const symbol = source && checker.getSymbolAtLocation(source);
    if (!source || !symbol) throw new Error(`declaredTypes: no module lambdas/${m}.ts`);
    return { source, exports: checker.getExportsOfModule(symbol) };
  };
  const handlers: Record<string, DeclaredHandler> = {};
  for (const m of modules) {
    const { source, exports } = exportsOf(m);
    const handler = exports.find((s) => s.name === 'handler');
    const signature = handler && checker.getTypeOfSymbolAtLocation(handler, source).getCallSignatures()[0];
    if (!signature) throw new Error(`declaredTypes: lambdas/${m}.ts exports no handler function`);
    const event = checker.getTypeOfSymbolAtLocation(signature.getParameters()[0], source);
    const result = checker.getAwaitedType(signature.getReturnType()) ?? signature.getReturnType();
    handlers[m] = { input: fieldsOf(event), output: result.flags & (ts.TypeFlags.Void | ts.TypeFlags.Undefined) ? new Map() : fieldsOf(result) };
  }
  const { exports } = exportsOf(execution.module);
  const named = exports.find((s) => s.name === execution.typeName);
  if (!named) throw new Error(`declaredTypes: lambdas/${execution.module}.ts exports no ${execution.typeName}`);
  return { handlers, execution: fieldsOf(checker.getDeclaredTypeOfSymbol(named)) };
}

/**
 * Walks the definition from StartAt with the execution input's declared fields, state by state
 * (Catch paths and Map item processors included): every `$.field` a state reads (Parameters and
 * Payload, ItemSelector, ItemsPath, Choice variables) must be a field the state's input always
 * has (a Choice rule may read an optional one only behind IsPresent); every Task must give its
 * handler each field its event type requires and no field it does not declare; a Task's result
 * is its handler's declared result. Answers the problems found, as sentences.
 */
export function dataFlowProblems(definition: Asl, handlers: Record<string, string>, declared: { handlers: Record<string, DeclaredHandler>; execution: Fields }): string[] {
  const problems: string[] = [];
  const required = (fields: Fields) => new Map([...fields].filter(([, f]) => !f.optional));
  const field = (path: string) => /^\$\.([A-Za-z0-9_]+)/.exec(path)?.[1];

  const read = (where: string, path: string, input: Fields) => {
    if (path.startsWith('$$.') || path === '$') return;
    const name = field(path);
    if (!name) return void problems.push(`${where} reads ${path}, which this check does not follow`);
    const f = input.get(name);
    if (!f) problems.push(`${where} reads ${path}, which its input does not have (it has ${[...input.keys()].join(', ')})`);
    else if (f.optional) problems.push(`${where} reads ${path}, which its input may not have`);
  };
  /** A payload template's fields, each read path checked against the input. */
  const evaluate = (where: string, template: Record<string, unknown>, input: Fields): Fields => {
    const out: Fields = new Map();
    for (const [key, value] of Object.entries(template)) {
      if (key.endsWith('.$')) read(`${where} (${key})`, String(value), input);
      out.set(key.replace(/\.\$$/, ''), { optional: false });
    }
    return out;
  };
  const withResult = (input: Fields, resultPath: string | null | undefined, result: Fields): Fields => {
    if (resultPath === null) return input;
    if (resultPath === undefined || resultPath === '$') return result;
    const name = field(resultPath);
    return new Map([...input, [name!, { optional: false }]]);
  };
  const choiceReads = (rule: any, guarded: Set<string>, out: string[]) => {
    const and = rule.And as any[] | undefined;
    if (and) {
      const present = new Set(and.filter((r) => r.IsPresent === true).map((r) => r.Variable as string));
      for (const r of and) choiceReads(r, new Set([...guarded, ...present]), out);
      return;
    }
    for (const r of [...(rule.Or ?? []), ...(rule.Not ? [rule.Not] : [])]) choiceReads(r, guarded, out);
    if (rule.Variable && !('IsPresent' in rule) && !guarded.has(rule.Variable)) out.push(rule.Variable);
  };

  const walk = (asl: Asl, start: Fields, scope: string) => {
    const seen = new Set<string>();
    const visit = (name: string | undefined, input: Fields) => {
      if (!name) return;
      const key = `${name}|${[...input].map(([k, f]) => k + (f.optional ? '?' : '')).sort().join(',')}`;
      if (seen.has(key)) return;
      seen.add(key);
      const state = asl.States[name];
      const where = `${scope}${name}`;
      if ((state as { InputPath?: unknown }).InputPath !== undefined || state.OutputPath !== undefined || state.ResultSelector !== undefined) {
        problems.push(`${where} uses InputPath, OutputPath or ResultSelector, which this check does not follow`);
      }
      const caught = (s: AslState, stateInput: Fields) => {
        for (const c of s.Catch ?? []) visit(c.Next, withResult(stateInput, c.ResultPath, new Map([['Error', { optional: false }], ['Cause', { optional: true }]])));
      };
      let output: Fields = input;
      switch (state.Type) {
        case 'Task': {
          const invokeApi = state.Resource!.includes(':states:::lambda:invoke');
          const event = invokeApi ? evaluate(where, (state.Parameters!.Payload ?? {}) as Record<string, unknown>, input) : state.Parameters ? evaluate(where, state.Parameters, input) : input;
          const handler = declared.handlers[handlers[name]];
          if (!handler) {
            problems.push(`${where} has no declared handler`);
            break;
          }
          for (const [k] of required(handler.input)) if (!event.has(k) || event.get(k)!.optional) problems.push(`${where} does not give ${handlers[name]} the field ${k} its event requires`);
          for (const [k] of event) if (!handler.input.has(k)) problems.push(`${where} gives ${handlers[name]} the field ${k}, which its event type does not declare`);
          const result = invokeApi ? new Map([['Payload', { optional: false }], ['StatusCode', { optional: false }], ['ExecutedVersion', { optional: false }]]) : handler.output;
          output = withResult(input, state.ResultPath, result);
          caught(state, input);
          break;
        }
        case 'Map': {
          if (state.ItemsPath) read(`${where} (ItemsPath)`, state.ItemsPath, input);
          const item = state.ItemSelector ? evaluate(where, state.ItemSelector, input) : new Map();
          walk(state.ItemProcessor!, item, `${where} > `);
          output = withResult(input, state.ResultPath, new Map());
          caught(state, input);
          break;
        }
        case 'Parallel':
          for (const branch of state.Branches ?? []) walk(branch, input, `${where} > `);
          output = withResult(input, state.ResultPath, new Map());
          caught(state, input);
          break;
        case 'Choice': {
          for (const rule of state.Choices ?? []) {
            const reads: string[] = [];
            choiceReads(rule, new Set(), reads);
            for (const path of reads) read(where, path, input);
            visit(rule.Next, input);
          }
          visit(state.Default, input);
          return;
        }
        case 'Pass':
        case 'Wait':
          break;
        default: // Succeed, Fail
          return;
      }
      if (!state.End) visit(state.Next, output);
    };
    visit(asl.StartAt, start);
  };
  walk(definition, declared.execution, '');
  return problems;
}
