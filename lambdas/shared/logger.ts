import { AsyncLocalStorage } from 'node:async_hooks';
import { Logger } from '@aws-lambda-powertools/logger';
import type { ConstructorOptions } from '@aws-lambda-powertools/logger/types';

/** Keys a unit of work puts on its log lines: ids (a batch, run, document, event, request; a route's path ids), never personal data. */
export type LogKeys = Record<string, string | number | Record<string, string> | undefined>;

/** The keys of the unit of work running now (see `withLogKeys`), by async context. */
const scope = new AsyncLocalStorage<LogKeys>();

/**
 * Powertools' Logger, and on every line the keys of the unit of work it is logged in. Powertools'
 * own `appendKeys` is one set per process (per invocation only on Lambda's multi-concurrency
 * runtime): the twin runs many functions side by side in one process, and an SQS worker may work
 * several records at once, so one unit's keys would land on another's lines. An AsyncLocalStorage
 * follows each unit through every await instead. A line's own keys win over the scope's.
 */
class ScopedLogger extends Logger {
  /** Children (`createChild`) read the scope too. */
  protected override createLogger(options?: ConstructorOptions): Logger {
    return new ScopedLogger(options);
  }

  protected override createAndPopulateLogItem(...[level, input, extra]: Parameters<Logger['createAndPopulateLogItem']>) {
    const keys = scope.getStore();
    // The scope first, so the line's own keys overwrite it; Powertools reads extra inputs of any kind in order.
    return super.createAndPopulateLogItem(level, input, keys ? ([keys, ...extra] as typeof extra) : extra);
  }
}

/**
 * One structured logger per process. Nothing logs headers or bodies, so tokens, signatures and
 * secrets never reach the logs; only ids, routes, statuses and timings do.
 */
export const logger: Logger = new ScopedLogger({ serviceName: 'despacho' });

/**
 * Runs `fn` with `keys` on every line logged in it, however deep and through every await (a
 * worker's record: its batch id; a pipeline task: its batch, run, stage and page). Scopes nest:
 * the inner one adds to the outer. Undefined keys are left out.
 */
export function withLogKeys<T>(keys: LogKeys, fn: () => T): T {
  const defined = Object.fromEntries(Object.entries(keys).filter(([, v]) => v !== undefined));
  return scope.run({ ...scope.getStore(), ...defined }, fn);
}

/**
 * In Lambda, every line of this invocation carries its request id, function name and cold start
 * (Powertools' Lambda context keys). Not on the twin: its functions share one process and run
 * side by side, so one invocation's keys would land on another's lines; there the request id is
 * answered as a key for the invocation's `withLogKeys` scope, under the name Lambda prints it with.
 */
export function logInvocation(context: { awsRequestId?: string } | undefined): LogKeys {
  if (!context?.awsRequestId) return {};
  if (process.env.AWS_LAMBDA_FUNCTION_NAME) {
    logger.addContext(context as Parameters<Logger['addContext']>[0]);
    return {};
  }
  return { function_request_id: context.awsRequestId };
}
