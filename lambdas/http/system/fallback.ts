import { publicRoute } from '../kit/public-route';
import { routeAccess } from '#catalog/access';
import { apiBase, compile, match } from '#catalog/routing';
import { MethodNotAllowed, NotFound } from '#core/errors';

/** The routes API Gateway has; a twin-only route is a path the cloud does not have (404). */
const compiled = routeAccess.filter((r) => !r.twinOnly).map(compile);

/** API Gateway's $default route: every request that matched no route ends here. */
export const handler = publicRoute({ public: true, maxBodyBytes: Number.MAX_SAFE_INTEGER, bodyMode: 'raw' }, async ({ event }) => {
  const { pathExists } = match(compiled, event.requestContext.http.method, event.rawPath);
  if (pathExists) {
    const allowed = compiled.filter((c) => c.regex.test(event.rawPath)).map((c) => c.route.method);
    throw new MethodNotAllowed(`Method ${event.requestContext.http.method} is not allowed here.`, {}, { Allow: [...new Set(allowed)].join(', ') });
  }
  const method = event.requestContext.http.method;
  const near = nearPath(method, event.rawPath);
  throw new NotFound(`No route for ${method} ${event.rawPath}.${near ? ` Did you mean ${method} ${near}? The API's paths begin with ${apiBase} (docs/partners/api-reference.md).` : ''}`);
});

/** The path a caller most likely meant: the same one with the `/api` prefix, or `/v1` after it, where a route answers it. */
function nearPath(method: string, path: string): string | undefined {
  const underApi = path.startsWith(apiBase + '/');
  const candidates = underApi ? [apiBase + '/v1' + path.slice(apiBase.length)] : [apiBase + path, apiBase + '/v1' + path];
  return candidates.find((c) => match(compiled, method, c).pathExists);
}
