import { publicRoute } from '../kit/public-route';
import { routeAccess } from '#catalog/access';
import { compile, match } from '#catalog/routing';
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
  throw new NotFound(`No route for ${event.requestContext.http.method} ${event.rawPath}.`);
});
