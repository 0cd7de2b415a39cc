import { describe, expect, it } from 'vitest';
import { rawGet } from '../helpers/raw-get.js';

describe('the console at /console', () => {
  it('redirects /console to /console/ and serves the page with a strict content security policy', async () => {
    const bare = await rawGet('/console');
    expect(bare.status).toBe(301);
    expect(bare.headers['location']).toBe('/console/');
    const page = await rawGet('/console/');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe('no-cache');
    expect(page.headers['content-security-policy']).toContain("default-src 'self'");
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.body.toString()).toContain('<div id="app">');
  });

  it('serves the fingerprinted script and stylesheet with their types, cached for a year, gzipped on request', async () => {
    const html = (await rawGet('/console/')).body.toString();
    const script = /src="(\/console\/app-[A-Z0-9]+\.js)"/.exec(html)?.[1];
    const style = /href="(\/console\/style-[A-Z0-9]+\.css)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    expect(style).toBeDefined();
    const js = await rawGet(script as string, { 'accept-encoding': 'gzip' });
    expect(js.status).toBe(200);
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers['content-encoding']).toBe('gzip');
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const plain = await rawGet(script as string);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.length).toBeGreaterThan(js.body.length);
    const css = await rawGet(style as string);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
  });

  it('answers 304 to a matching If-None-Match', async () => {
    const first = await rawGet('/console/index.html');
    const etag = first.headers['etag'] as string;
    expect(etag).toMatch(/^".+"$/);
    const again = await rawGet('/console/index.html', { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
  });

  it('serves only the files the build wrote: no traversal, no other files', async () => {
    for (const path of ['/console/../package.json', '/console/%2e%2e/package.json', '/console/..%2fpackage.json', '/console/build.mjs', '/console/src/main.tsx', '/console/nothing.js']) {
      const res = await rawGet(path);
      expect(res.status, path).toBe(404);
      expect(res.body.toString(), path).not.toContain('"name"');
    }
  });
});
