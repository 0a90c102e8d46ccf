import type { RouteDef } from './types';

/** Every route lives under this prefix, in API Gateway and on the twin alike. */
export const apiBase = '/api';

/** The path a route answers on: under /api, or as is for the few pages served at the root. */
export function fullPath(r: Pick<RouteDef, 'path' | 'root'>): string {
  return r.root ? r.path : apiBase + r.path;
}

export function routeKey(r: Pick<RouteDef, 'method' | 'path' | 'root'>): string {
  return `${r.method} ${fullPath(r)}`;
}

export interface CompiledRoute<R> {
  route: R;
  regex: RegExp;
  names: string[];
}

/** `/v1/tokens/{id}` -> a matcher that captures `id` (one path segment, as API Gateway does). */
export function compile<R extends Pick<RouteDef, 'path' | 'root'>>(route: R): CompiledRoute<R> {
  const names: string[] = [];
  const pattern = fullPath(route)
    .split('/')
    .map((seg) => {
      const m = /^\{(\w+)(\+?)\}$/.exec(seg);
      if (!m) return seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(m[1]);
      return m[2] ? '(.+)' : '([^/]+)';
    })
    .join('/');
  return { route, regex: new RegExp(`^${pattern}$`), names };
}

/** Finds the route for a path; literal segments win over parameters, as in API Gateway. */
export function match<R extends Pick<RouteDef, 'path' | 'method' | 'root'>>(
  compiled: CompiledRoute<R>[],
  method: string,
  path: string,
): { route?: R; params: Record<string, string>; pathExists: boolean } {
  let pathExists = false;
  const candidates = compiled
    .map((c) => ({ c, m: c.regex.exec(path) }))
    .filter((x) => x.m)
    .sort((a, b) => a.c.names.length - b.c.names.length);
  for (const { c, m } of candidates) {
    pathExists = true;
    if (c.route.method !== method) continue;
    const params: Record<string, string> = {};
    c.names.forEach((n, i) => (params[n] = safeDecode(m![i + 1])));
    return { route: c.route, params, pathExists };
  }
  return { params: {}, pathExists };
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
