import type { Method, RouteDef } from './route.js';

interface Node {
  fixed: Map<string, Node>;
  param: { name: string; node: Node } | undefined;
  routes: Map<Method, RouteDef>;
}

const newNode = (): Node => ({ fixed: new Map(), param: undefined, routes: new Map() });

export type Match = { kind: 'found'; route: RouteDef; params: Record<string, string> } | { kind: 'wrong-method'; allowed: Method[] } | { kind: 'none' };

/** Matches of recent request lines: the same few URLs (a busy room's) come again and again. */
const MATCH_CACHE_SIZE = 4096;

/**
 * A segment trie: fixed segments win over parameters; trailing and doubled slashes are ignored.
 * Parameters are given as they came (percent-encoded): decodePathParams decodes and checks them.
 */
export class Router {
  private readonly root = newNode();
  private readonly recent = new Map<string, Match>();

  add(fullPath: string, route: RouteDef): void {
    let node = this.root;
    for (const segment of split(fullPath)) {
      if (segment.startsWith(':')) {
        const name = segment.slice(1);
        if (node.param === undefined) node.param = { name, node: newNode() };
        else if (node.param.name !== name) throw new Error(`Parameter :${name} clashes with :${node.param.name} at ${fullPath}`);
        node = node.param.node;
      } else {
        let next = node.fixed.get(segment);
        if (next === undefined) {
          next = newNode();
          node.fixed.set(segment, next);
        }
        node = next;
      }
    }
    if (node.routes.has(route.method)) throw new Error(`Duplicate route ${route.method} ${fullPath}`);
    node.routes.set(route.method, route);
  }

  match(method: Method, path: string): Match {
    const key = `${method} ${path}`;
    let found = this.recent.get(key);
    if (found === undefined) {
      found = this.walkMatch(method, path);
      if (this.recent.size >= MATCH_CACHE_SIZE) this.recent.clear();
      this.recent.set(key, found);
    }
    // A fresh params object each time: handlers own theirs.
    return found.kind === 'found' ? { ...found, params: { ...found.params } } : found;
  }

  private walkMatch(method: Method, path: string): Match {
    const segments = split(path);
    let allowed: Method[] | undefined;
    // Fixed segments are tried before parameters; the first path that has the method wins.
    for (const { node, params } of walk(this.root, segments, 0, {})) {
      const route = node.routes.get(method);
      if (route !== undefined) return { kind: 'found', route, params };
      allowed ??= [...node.routes.keys()];
    }
    return allowed === undefined ? { kind: 'none' } : { kind: 'wrong-method', allowed };
  }
}

function* walk(node: Node, segments: string[], index: number, params: Record<string, string>): Generator<{ node: Node; params: Record<string, string> }> {
  if (index === segments.length) {
    if (node.routes.size > 0) yield { node, params };
    return;
  }
  const segment = segments[index] as string;
  const fixed = node.fixed.get(segment);
  if (fixed !== undefined) yield* walk(fixed, segments, index + 1, params);
  if (node.param !== undefined) yield* walk(node.param.node, segments, index + 1, { ...params, [node.param.name]: segment });
}

function split(path: string): string[] {
  return path.split('/').filter((s) => s !== '');
}
