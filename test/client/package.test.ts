import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';

const CLIENT = new URL('../../client/', import.meta.url).pathname;
const LIMIT = 8 * 1024;

describe('the engage-client package', () => {
  it('is built as one ESM file of at most 8 KiB gzipped, with types and no runtime dependencies', () => {
    const built = readFileSync(`${CLIENT}dist/index.js`);
    const gzipped = gzipSync(built, { level: 9 }).length;
    expect(gzipped, `client/dist/index.js is ${gzipped} bytes gzipped`).toBeLessThanOrEqual(LIMIT);
    const types = readFileSync(`${CLIENT}dist/index.d.ts`, 'utf8');
    for (const name of ['LiveClient', 'pushChatUpdates', 'LiveConfig', 'Subscription']) expect(types).toContain(name);
    const pkg = JSON.parse(readFileSync(`${CLIENT}package.json`, 'utf8')) as Record<string, unknown>;
    expect(pkg).toMatchObject({ name: 'engage-client', type: 'module', types: './dist/index.d.ts' });
    expect(pkg['dependencies']).toBeUndefined();
    expect(built.toString('utf8')).not.toMatch(/\bimport\s*[^(]*from\s*['"]/);
  });
});
