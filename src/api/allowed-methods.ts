/**
 * What a path answers to, for a request no route took: a path the API serves with other methods is
 * 405 `METHOD_NOT_ALLOWED` with `Allow` (RFC 9110 §15.5.6), not 404 as if it did not exist.
 */

/**
 * A Hono route's path as a pattern: `:id` one segment, `:ref{.+}` its own pattern, `*` the rest.
 * Exact, as Hono's router is: `/console/` is not `/console`, so it is 404, not a 405 naming GET.
 */
function patternOf(path: string): RegExp {
  const source = path
    .split('/')
    .map((segment) => {
      if (segment === '*') return '.*';
      const parameter = /^:[A-Za-z0-9_]+(?:\{(.+)\})?$/.exec(segment);
      if (parameter) return `(?:${parameter[1] ?? '[^/]+'})`;
      return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return new RegExp(`^${source}$`);
}

/**
 * From the app's routes (Hono's `app.routes`; middleware, method `ALL`, is not a route), the methods
 * each path answers: a GET answers HEAD too, and every path answers OPTIONS.
 */
export function allowedMethodsOf(routes: readonly { method: string; path: string }[]) {
  const patterns = routes
    .filter((route) => route.method !== 'ALL')
    .map((route) => ({ method: route.method, pattern: patternOf(route.path) }));
  return (path: string): string[] => {
    const methods = new Set(patterns.filter((route) => route.pattern.test(path)).map((route) => route.method));
    if (methods.size === 0) return [];
    if (methods.has('GET')) methods.add('HEAD');
    methods.add('OPTIONS');
    const order = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
    return [...methods].sort((a, b) => order.indexOf(a) - order.indexOf(b));
  };
}
