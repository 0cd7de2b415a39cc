import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import type { HttpRequest, HttpResponse, TemplatedApp } from 'uWebSockets.js';
import type { Area, Core } from '../core.js';
import { endAnswer, getAndHead } from '../http/head.js';

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

interface Asset {
  type: string;
  body: Buffer;
  gzip: Buffer | undefined;
  etag: string;
  cacheControl: string;
}

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

function serve(assets: Map<string, Asset>, res: HttpResponse, req: HttpRequest, head: boolean): void {
  const name = req.getUrl().slice('/console/'.length) || 'index.html';
  const asset = assets.get(name);
  const notModified = asset !== undefined && req.getHeader('if-none-match') === asset.etag;
  const gzip = asset?.gzip !== undefined && /\bgzip\b/.test(req.getHeader('accept-encoding'));
  res.cork(() => {
    if (asset === undefined) {
      const missing = assets.size === 0 ? 'The console is not built: run npm run build:console.' : 'Not found.';
      res.writeStatus(assets.size === 0 ? '503 Service Unavailable' : '404 Not Found').writeHeader('content-type', 'text/plain; charset=utf-8');
      endAnswer(res, missing, head);
      return;
    }
    res.writeStatus(notModified ? '304 Not Modified' : '200 OK');
    for (const [header, value] of SECURITY_HEADERS) res.writeHeader(header, value);
    res.writeHeader('etag', asset.etag).writeHeader('cache-control', asset.cacheControl).writeHeader('vary', 'accept-encoding');
    if (notModified) return void res.endWithoutBody();
    res.writeHeader('content-type', asset.type);
    if (gzip) res.writeHeader('content-encoding', 'gzip');
    endAnswer(res, gzip ? (asset.gzip as Buffer) : asset.body, head);
  });
}

function loadAssets(): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  if (!existsSync(DIST)) return assets;
  for (const entry of readdirSync(DIST, { withFileTypes: true })) {
    const type = TYPES[entry.name.slice(entry.name.lastIndexOf('.') + 1)];
    if (!entry.isFile() || type === undefined) continue;
    const body = readFileSync(new URL(entry.name, DIST));
    const packed = gzipSync(body);
    assets.set(entry.name, {
      type,
      body,
      gzip: packed.length < body.length ? packed : undefined,
      etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
      cacheControl: /-[A-Z0-9]{8,}\./.test(entry.name) ? 'public, max-age=31536000, immutable' : 'no-cache',
    });
  }
  return assets;
}
