import type { RouteDef } from './route.js';

/** Where a route is served: app routes under /api/v3/{appid}/, manage routes under /api/v3/manage/; `:name` marks a parameter. */
export function fullPath(route: RouteDef): string {
  const scope = route.scope ?? 'app';
  return (scope === 'app' ? '/api/v3/:appid/' : scope === 'manage' ? '/api/v3/manage/' : '/') + route.path;
}

/** A path as the metrics and the API reference spell it: `:name` becomes `{name}`. */
export const routePattern = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
