import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { HttpRequest, HttpResponse } from 'uWebSockets.js';
import { takesGzip } from './encoding.js';
import { endAnswer } from './head.js';

/** A built file served from memory: read once at start, gzipped once, revalidated by its ETag. */
export interface StaticAsset {
  type: string;
  body: Buffer;
  gzip: Buffer | undefined;
  etag: string;
  cacheControl: string;
  /** Sent with every answer for it (security, CORS). */
  headers: [string, string][];
}

/** Up to 22 characters of the body's SHA-256, base64url: the ETag and the fingerprint in long-cached names. */
export const contentHash = (body: Buffer): string => createHash('sha256').update(body).digest('base64url').slice(0, 22);

export function staticAsset(body: Buffer, type: string, cacheControl: string, headers: [string, string][] = []): StaticAsset {
  const packed = gzipSync(body);
  return { type, body, gzip: packed.length < body.length ? packed : undefined, etag: `"${contentHash(body)}"`, cacheControl, headers };
}

/** 200 with the body (gzipped when the client takes it; none to HEAD), or 304 when the client's copy has the same ETag. */
export function serveAsset(res: HttpResponse, req: HttpRequest, asset: StaticAsset, head: boolean): void {
  const notModified = req.getHeader('if-none-match') === asset.etag;
  const gzip = asset.gzip !== undefined && takesGzip(req.getHeader('accept-encoding'));
  res.cork(() => {
    res.writeStatus(notModified ? '304 Not Modified' : '200 OK');
    for (const [header, value] of asset.headers) res.writeHeader(header, value);
    res.writeHeader('etag', asset.etag).writeHeader('cache-control', asset.cacheControl).writeHeader('vary', 'accept-encoding');
    if (notModified) return void res.endWithoutBody();
    res.writeHeader('content-type', asset.type);
    if (gzip) res.writeHeader('content-encoding', 'gzip');
    endAnswer(res, gzip ? (asset.gzip as Buffer) : asset.body, head);
  });
}
