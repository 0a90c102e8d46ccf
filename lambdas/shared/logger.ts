import { Logger } from '@aws-lambda-powertools/logger';

/**
 * One structured logger per process. Nothing logs headers or bodies, so tokens, signatures and
 * secrets never reach the logs; only ids, routes, statuses and timings do.
 */
export const logger = new Logger({ serviceName: 'despacho' });
