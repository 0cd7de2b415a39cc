import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import type { HttpResponse, TemplatedApp } from 'uWebSockets.js';
import type { Area, Core } from '../core.js';
import { getAndHead } from '../http/head.js';
import { contentHash, serveAsset, staticAsset, type StaticAsset } from '../http/static-asset.js';

/** engage-client's ESM build (`npm run build:client`, run by `npm install`), beside src/ and dist/ alike. */
const BUILT = new URL('../../client/dist/index.js', import.meta.url);
export const CLIENT_SCRIPT_PATH = '/client/engage-client.js';

/** A public script: any page may load it (module scripts need CORS); the API still checks origins itself. */
const HEADERS: [string, string][] = [
  ['access-control-allow-origin', '*'],
  ['cross-origin-resource-policy', 'cross-origin'],
  ['x-content-type-options', 'nosniff'],
];
const TYPE = 'text/javascript; charset=utf-8';

/** What a page needs to load the build pinned: its fingerprinted path and its subresource integrity. */
export interface ClientScriptManifest {
  path: string;
  integrity: string;
  bytes: number;
}

/**
 * Serves the same ESM build the package ships, so a plain page needs no bundler and no registry:
 * `/client/engage-client.js` (revalidated by ETag, follows upgrades), `/client/engage-client-HASH.js`
 * (cached for a year) and `/client/engage-client.json` (those two and the integrity hash).
 */
export function clientScriptArea(core: Core): Area {
  const body = existsSync(BUILT) ? readFileSync(BUILT) : undefined;
  if (body === undefined) core.log.warn({ file: BUILT.pathname }, 'engage-client not built: run npm run build:client');
  return {
    routes: [],
    attach(app: TemplatedApp) {
      if (body === undefined) {
        app.get('/client/*', (res) => notBuilt(res));
        return;
      }
      const manifest = clientScriptManifest(body);
      const assets: [string, StaticAsset][] = [
        [CLIENT_SCRIPT_PATH, staticAsset(body, TYPE, 'no-cache', HEADERS)],
        [manifest.path, staticAsset(body, TYPE, 'public, max-age=31536000, immutable', HEADERS)],
        ['/client/engage-client.json', staticAsset(Buffer.from(JSON.stringify(manifest)), 'application/json; charset=utf-8', 'no-cache', HEADERS)],
      ];
      for (const [path, asset] of assets) getAndHead(app, path, (res, req, head) => serveAsset(res, req, asset, head));
    },
  };
}

export function clientScriptManifest(body: Buffer): ClientScriptManifest {
  return {
    path: `/client/engage-client-${contentHash(body).slice(0, 16)}.js`,
    integrity: `sha384-${createHash('sha384').update(body).digest('base64')}`,
    bytes: body.length,
  };
}

function notBuilt(res: HttpResponse): void {
  res.cork(() => {
    res.writeStatus('503 Service Unavailable').writeHeader('content-type', 'text/plain; charset=utf-8').end('engage-client is not built: run npm run build:client.');
  });
}
