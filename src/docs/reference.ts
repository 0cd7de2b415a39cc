import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { TemplatedApp } from 'uWebSockets.js';
import type { RouteDef } from '../http/route.js';
import { getAndHead } from '../http/head.js';
import { sendPlain } from '../http/plain.js';
import { asyncApiDocument, type Protocol } from './asyncapi.js';
import { openApiDocument } from './openapi.js';

const JSON_TYPE = 'application/json; charset=utf-8';
const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** The files of swagger-ui-dist served under /docs/, read on first request (the page is rarely opened). */
const ASSETS = new Map([
  ['swagger-ui.css', 'text/css; charset=utf-8'],
  ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
  ['swagger-ui-standalone-preset.js', 'text/javascript; charset=utf-8'],
  ['favicon-32x32.png', 'image/png'],
]);

const PAGE = `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8">
    <title>engage-server API reference</title>
    <link rel="stylesheet" type="text/css" href="/docs/swagger-ui.css">
    <link rel="icon" type="image/png" href="/docs/favicon-32x32.png">
  </head>
  <body>
    <p style="font-family: sans-serif; margin: 1em 2em">HTTP API below (<a href="/openapi.json">/openapi.json</a>); WebSocket protocol: <a href="/asyncapi.json">/asyncapi.json</a>.</p>
    <div id="swagger-ui"></div>
    <script src="/docs/swagger-ui-bundle.js" charset="UTF-8"></script>
    <script src="/docs/swagger-ui-standalone-preset.js" charset="UTF-8"></script>
    <script src="/docs/init.js" charset="UTF-8"></script>
  </body>
</html>
`;

const INIT = `window.onload = () => {
  window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true, presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: 'StandaloneLayout' });
};
`;

/**
 * GET /openapi.json and /asyncapi.json (generated once, here, from the route table and the
 * WebSocket protocol) and the browsable reference at /docs, served from node_modules (no CDN).
 */
export function attachReference(app: TemplatedApp, routes: readonly RouteDef[], protocol: Protocol): void {
  const openApi = JSON.stringify(openApiDocument(routes, { version: VERSION }));
  const asyncApi = JSON.stringify(asyncApiDocument({ version: VERSION }, protocol));
  const assetDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const loaded = new Map<string, Buffer>();

  getAndHead(app, '/openapi.json', (res, _req, head) => sendPlain(res, 200, JSON_TYPE, openApi, [], head));
  getAndHead(app, '/asyncapi.json', (res, _req, head) => sendPlain(res, 200, JSON_TYPE, asyncApi, [], head));
  getAndHead(app, '/docs', (res, _req, head) => sendPlain(res, 200, 'text/html; charset=utf-8', PAGE, [], head));
  getAndHead(app, '/docs/init.js', (res, _req, head) => sendPlain(res, 200, 'text/javascript; charset=utf-8', INIT, [], head));
  getAndHead(app, '/docs/:file', (res, req, head) => {
    const file = req.getParameter(0) ?? '';
    const type = ASSETS.get(file);
    if (type === undefined) return sendPlain(res, 404, 'text/plain; charset=utf-8', 'Not found.\n', [], head);
    let body = loaded.get(file);
    if (body === undefined) {
      body = readFileSync(join(assetDir, file));
      loaded.set(file, body);
    }
    sendPlain(res, 200, type, body, [['cache-control', 'public, max-age=86400']], head);
  });
}
