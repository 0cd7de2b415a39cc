import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { HttpRequest, HttpResponse, TemplatedApp } from 'uWebSockets.js';
import type { Area, Core } from '../core.js';
import { endAnswer, getAndHead } from '../http/head.js';
import { serveAsset, staticAsset, type StaticAsset } from '../http/static-asset.js';

/** The built console (`npm run build:console`, run by `npm install`), beside src/ and dist/ alike. */
const DIST = new URL('../../console/dist/', import.meta.url);

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
  ico: 'image/x-icon',
  map: 'application/json; charset=utf-8',
};

const SECURITY_HEADERS: [string, string][] = [
  ['content-security-policy', "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"],
  ['x-content-type-options', 'nosniff'],
  ['referrer-policy', 'no-referrer'],
];

/**
 * Serves the moderation console under /console from memory: the files are read once at start,
 * so a request can only name a file the build wrote (no path is ever joined from the URL).
 * Fingerprinted names (`app-HASH.js`) are cached for a year; index.html is revalidated by ETag.
 */
export function consoleArea(core: Core): Area {
  const assets = loadAssets();
  if (assets.size === 0) core.log.warn({ dir: DIST.pathname }, 'console not built: run npm run build:console');
  return {
    routes: [],
    attach(app: TemplatedApp) {
      getAndHead(app, '/console', (res) => {
        res.cork(() => res.writeStatus('301 Moved Permanently').writeHeader('location', '/console/').end());
      });
      getAndHead(app, '/console/*', (res, req, head) => serve(assets, res, req, head));
    },
  };
}

function serve(assets: Map<string, StaticAsset>, res: HttpResponse, req: HttpRequest, head: boolean): void {
  const name = req.getUrl().slice('/console/'.length) || 'index.html';
  const asset = assets.get(name);
  if (asset !== undefined) return serveAsset(res, req, asset, head);
  const missing = assets.size === 0 ? 'The console is not built: run npm run build:console.' : 'Not found.';
  res.cork(() => {
    res.writeStatus(assets.size === 0 ? '503 Service Unavailable' : '404 Not Found').writeHeader('content-type', 'text/plain; charset=utf-8');
    endAnswer(res, missing, head);
  });
}

function loadAssets(): Map<string, StaticAsset> {
  const assets = new Map<string, StaticAsset>();
  if (!existsSync(DIST)) return assets;
  for (const entry of readdirSync(DIST, { withFileTypes: true })) {
    const type = TYPES[entry.name.slice(entry.name.lastIndexOf('.') + 1)];
    if (!entry.isFile() || type === undefined) continue;
    const cacheControl = /-[A-Z0-9]{8,}\./.test(entry.name) ? 'public, max-age=31536000, immutable' : 'no-cache';
    assets.set(entry.name, staticAsset(readFileSync(new URL(entry.name, DIST)), type, cacheControl, SECURITY_HEADERS));
  }
  return assets;
}
