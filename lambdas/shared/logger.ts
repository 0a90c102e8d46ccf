import { Logger } from '@aws-lambda-powertools/logger';

/**
 * One structured logger per process. Nothing logs headers or bodies, so tokens, signatures and
 * secrets never reach the logs; only ids, routes, statuses and timings do.
 */
export const logger = new Logger({ serviceName: 'despacho' });

/**
 * In Lambda, every line of this invocation carries its request id, function name and cold start
 * (Powertools' Lambda context keys). Not on the twin: its functions share one process and run
 * side by side, so one invocation's keys would land on another's lines.
 */
export function logInvocation(context: { awsRequestId?: string } | undefined): void {
  if (context?.awsRequestId && process.env.AWS_LAMBDA_FUNCTION_NAME) logger.addContext(context as Parameters<Logger['addContext']>[0]);
}
