import type { Context } from 'aws-lambda';
import { route, type ApiEvent, type ApiResult } from './route';
import { MethodNotAllowed } from '#core/errors';

type Handler = (event: ApiEvent, context: Context) => Promise<ApiResult>;

/** One module serving the few routes of a small resource: picks the route's handler by method. */
export function byMethod(handlers: Partial<Record<string, Handler>>): Handler {
  const allow = Object.keys(handlers).join(', ');
  const refuse = route({ public: true, bodyMode: 'raw' }, async () => {
    throw new MethodNotAllowed(undefined, {}, { Allow: allow });
  });
  return (event, context) => (handlers[event.requestContext.http.method] ?? refuse)(event, context);
}
