import type { Context } from 'aws-lambda';
import type { ApiEvent, ApiResult } from './route';

type Handler = (event: ApiEvent, context: Context) => Promise<ApiResult>;

/** One module serving the few routes of a small resource: picks the route's handler by method. */
export function byMethod(handlers: Partial<Record<string, Handler>>): Handler {
  return (event, context) => {
    const h = handlers[event.requestContext.http.method];
    if (!h) throw new Error(`No handler for ${event.routeKey}`);
    return h(event, context);
  };
}
