import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { baseUrl } from '../helpers/api.js';

/**
 * The server serves the ESM build the package ships, so a plain page needs no bundler and no
 * registry: a stable path revalidated by ETag, a fingerprinted path cached for a year, CORS for
 * pages of any origin, and the integrity hash client/README.md lists.
 */
const BUILT = readFileSync(new URL('../../client/dist/index.js', import.meta.url));
const README = readFileSync(new URL('../../client/README.md', import.meta.url), 'utf8');
const integrity = `sha384-${createHash('sha384').update(BUILT).digest('base64')}`;

describe('GET /client/engage-client.js', () => {
  it('answers the build with an ETag, no-cache, CORS for any origin, gzip when taken, and 304 for the same ETag', async () => {
    const res = await fetch(`${baseUrl()}/client/engage-client.js`, { headers: { origin: 'https://fans.example.com' } });
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(BUILT)).toBe(true);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    const etag = res.headers.get('etag') as string;
    expect(etag).toMatch(/^"[\w-]{22}"$/);
    const again = await fetch(`${baseUrl()}/client/engage-client.js`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    const gzipped = await new Promise<{ encoding: string | undefined; body: Buffer }>((resolve, reject) => {
      request(`${baseUrl()}/client/engage-client.js`, { headers: { 'accept-encoding': 'gzip' } }, (r) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => resolve({ encoding: r.headers['content-encoding'], body: Buffer.concat(chunks) }));
      })
        .on('error', reject)
        .end();
    });
    expect(gzipped.encoding).toBe('gzip');
    expect(gunzipSync(gzipped.body).equals(BUILT)).toBe(true);
  });

  it('names the pinned path and integrity in engage-client.json, the pinned path is cached for a year, and client/README.md lists both', async () => {
    const manifest = (await (await fetch(`${baseUrl()}/client/engage-client.json`)).json()) as { path: string; integrity: string; bytes: number };
    expect(manifest).toEqual({ path: expect.stringMatching(/^\/client\/engage-client-[\w-]{16}\.js$/), integrity, bytes: BUILT.length });
    const pinned = await fetch(`${baseUrl()}${manifest.path}`);
    expect(pinned.status).toBe(200);
    expect(pinned.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(pinned.headers.get('access-control-allow-origin')).toBe('*');
    expect(Buffer.from(await pinned.arrayBuffer()).equals(BUILT)).toBe(true);
    expect(README).toContain(`\`${manifest.path}\``);
    expect(README).toContain(`\`${integrity}\``);
    expect((await fetch(`${baseUrl()}/client/engage-client-0000000000000000.js`)).status).toBe(404);
  });
});
