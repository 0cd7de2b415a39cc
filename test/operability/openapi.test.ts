// The OpenAPI document is arbitrary JSON read loosely; `any` is the honest type for it here.
/* eslint-disable @typescript-eslint/no-explicit-any */
import { validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RouteTableServer, type ServedRoute, startWithRouteTable } from '../helpers/route-table.js';

/** The route's path as the document spells it, from the route table's own fields. */
function documentedPath(route: ServedRoute): string {
  const prefix = route.scope === 'app' ? '/api/v3/{appid}/' : route.scope === 'manage' ? '/api/v3/manage/' : '/';
  return prefix + route.path.replace(/:(\w+)/g, '{$1}');
}

describe('GET /openapi.json', () => {
  let server: RouteTableServer | undefined;
  let routes: ServedRoute[];
  let base: string;
  let doc: any;
  beforeAll(async () => {
    server = await startWithRouteTable();
    routes = server.routes;
    base = `http://127.0.0.1:${server.port}`;
    const res = await fetch(`${base}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    doc = await res.json();
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = await validate(structuredClone(doc));
    expect(result.valid ? [] : result.errors).toEqual([]);
  });

  it('has every route of the table, and nothing else', () => {
    expect(routes.length).toBeGreaterThan(50);
    const documented = Object.entries(doc.paths).flatMap(([path, item]: [string, any]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`));
    // The event stream is served beside the route table (src/realtime/sse.ts).
    const served = [...routes.map((r) => `${r.method} ${documentedPath(r)}`), 'GET /api/v3/{appid}/sse'];
    expect(documented.sort()).toEqual(served.sort());
  });

  it('declares the path and query parameters and the bodies of each route', () => {
    for (const route of routes) {
      const op = doc.paths[documentedPath(route)][route.method.toLowerCase()];
      const where = `${route.method} ${route.path}`;
      const params = (op.parameters ?? []) as any[];
      const pathParams = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]);
      if (route.scope === 'app') pathParams.unshift('appid');
      expect(
        params.filter((p) => p.in === 'path').map((p) => p.name),
        where,
      ).toEqual(pathParams);
      expect(
        params.filter((p) => p.in === 'path').every((p) => p.required === true),
        where,
      ).toBe(true);
      expect(
        params
          .filter((p) => p.in === 'query')
          .map((p) => p.name)
          .sort(),
        where,
      ).toEqual((route.query ?? []).sort());
      if (route.body === undefined) expect(op.requestBody, where).toBeUndefined();
      else expect(Object.keys(op.requestBody.content['application/json'].schema.properties ?? {}).sort(), where).toEqual(route.body.sort());
    }
  });

  it('describes the auth schemes, the envelope and the error answers', () => {
    expect(doc.components.securitySchemes).toMatchObject({
      apiToken: { type: 'apiKey', in: 'header', name: 'x-api-token' },
      userToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      manageToken: { type: 'apiKey', in: 'header', name: 'x-manage-token' },
    });
    expect(doc.components.schemas.Envelope.required).toEqual(['kind', 'message', 'code', 'errors', 'data']);
    for (const route of routes) {
      const op = doc.paths[documentedPath(route)][route.method.toLowerCase()];
      const where = `${route.method} ${route.path}`;
      const statuses = Object.keys(op.responses);
      expect(op.responses['200'].content['application/json'].schema.$ref, where).toBe('#/components/schemas/Envelope');
      expect(statuses, where).toEqual(expect.arrayContaining(['404', '405']));
      const scope = route.scope;
      if (scope === 'manage') expect(op.security, where).toEqual([{ manageToken: [] }]);
      if (scope === 'app') expect(op.security, where).toEqual([{ apiToken: [] }, { apiToken: [], userToken: [] }]);
      if (scope !== 'public') expect(statuses, where).toContain('403');
      if (route.body !== undefined) expect(statuses, where).toEqual(expect.arrayContaining(['400', '413']));
      for (const status of statuses.filter((s) => s !== '200')) expect(doc.components.responses[op.responses[status].$ref.split('/').pop()], where).toBeDefined();
    }
    for (const route of routes) for (const status of route.errors) expect(Object.keys(doc.paths[documentedPath(route)][route.method.toLowerCase()].responses)).toContain(String(status));
    expect(Object.keys(doc.paths['/readyz'].get.responses)).toContain('503');
  });

  it('answers as documented: an app route without a token gets the 403 envelope', async () => {
    const route = routes.find((r) => r.scope === 'app' && r.method === 'GET') as ServedRoute;
    const res = await fetch(`${base}${documentedPath(route).replace(/\{\w+\}/g, 'x')}`);
    expect(res.status).toBe(403);
    expect(Object.keys(await res.json())).toEqual(doc.components.schemas.Envelope.required);
  });

  it('serves a browsable reference at /docs whose assets load from this server', async () => {
    const page = await fetch(`${base}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    const assets = [...html.matchAll(/<(?:script|link)\b[^>]*?\b(?:src|href)="([^"]+)"/g)].map((m) => m[1] as string);
    expect(assets.length).toBeGreaterThanOrEqual(3);
    for (const asset of assets) {
      expect(asset, 'served by us, not a CDN').toMatch(/^\/docs\//);
      const res = await fetch(`${base}${asset}`);
      expect(res.status, asset).toBe(200);
      expect((await res.arrayBuffer()).byteLength, asset).toBeGreaterThan(0);
    }
    const init = await (await fetch(`${base}/docs/init.js`)).text();
    expect(init).toContain("'/openapi.json'");
    expect((await fetch(`${base}/docs/constructor`)).status).toBe(404);
    expect((await fetch(`${base}/docs/..%2Fpackage.json`)).status).toBe(404);
  });
});
