import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, manage, newApp, request, uid, type TestApp } from '../helpers/api.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { expectEnvelope } from './util.js';

let app: TestApp;
beforeAll(async () => {
  app = await newApp({ userreportslimit: 0 });
});

describe('envelope on success', () => {
  it('wraps data with kind api.result, code 200, empty errors and a message string', async () => {
    const res = await app.api.post(`user/users/${uid('u')}`, { displayname: 'Ann' });
    expectEnvelope(res, 200);
    expect(res.body.data.kind).toBe('app.user');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  });
});

describe('envelope on every error class', () => {
  it('400 for a malformed JSON body, naming the body', async () => {
    const res = await app.api.post(`user/users/${uid('u')}`, '{"displayname": ');
    expectEnvelope(res, 400);
    expect(res.body.message).not.toBe('');
    expect(Object.keys(res.body.errors).length).toBeGreaterThan(0);
  });

  it('400 for a JSON body that is not an object', async () => {
    const res = await app.api.post(`user/users/${uid('u')}`, '[1,2]');
    expectEnvelope(res, 400);
  });

  it('400 for a validation error, errors naming the field', async () => {
    const res = await app.api.post(`user/users/${uid('u')}/role`, { role: 'emperor' });
    expectEnvelope(res, 400);
    expect(Object.keys(res.body.errors)).toEqual(['role']);
  });

  it('403 without a token', async () => {
    const res = await request('GET', app.api.url('user/users/'), undefined, {});
    expectEnvelope(res, 403);
    expect(res.body.message).toBe('Request is not authorized with a token.');
  });

  it('404 for an unknown user and for an unknown path', async () => {
    const missing = await app.api.get(`user/users/${uid('nobody')}`);
    expectEnvelope(missing, 404);
    const nowhere = await app.api.get('no/such/endpoint');
    expectEnvelope(nowhere, 404);
    const outside = await request('GET', `${baseUrl()}/not-an-api`);
    expectEnvelope(outside, 404);
  });

  it('405 with an Allow header for a wrong method', async () => {
    const res = await app.api.put('user/search', { handle: 'x' });
    expectEnvelope(res, 405);
    expect(res.headers.get('allow')).toContain('POST');
    const del = await app.api.send('PATCH', `user/users/${uid('u')}`);
    expectEnvelope(del, 405);
    const allow = (del.headers.get('allow') ?? '').split(',').map((s) => s.trim());
    expect(allow.sort()).toEqual(['DELETE', 'GET', 'HEAD', 'POST']);
  });

  it('405 for a handle rule', async () => {
    const res = await app.api.post(`user/users/${uid('u')}`, { displayname: 'A', handle: 'no spaces' });
    expectEnvelope(res, 405);
  });

  it('409 for a taken handle', async () => {
    const handle = uid('h');
    expectEnvelope(await app.api.post(`user/users/${uid('u')}`, { displayname: 'A', handle }), 200);
    const res = await app.api.post(`user/users/${uid('u')}`, { displayname: 'B', handle });
    expectEnvelope(res, 409);
  });

  it('412 when user reporting is off for the application', async () => {
    const target = uid('u');
    await app.api.post(`user/users/${target}`, { displayname: 'T' });
    const res = await app.api.post(`user/users/${target}/report`, { userid: uid('r'), reporttype: 'spam' });
    expectEnvelope(res, 412);
  });
});

describe('request id', () => {
  it('echoes x-request-id on success and on errors', async () => {
    const id = `rid-${uid()}`;
    const ok = await app.api.withHeaders({ 'x-request-id': id }).get('user/users/');
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-request-id')).toBe(id);
    const missing = await app.api.withHeaders({ 'x-request-id': id }).get(`user/users/${uid('x')}`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-request-id')).toBe(id);
  });

  it('assigns a distinct request id when none is sent', async () => {
    const a = await app.api.get('user/users/');
    const b = await app.api.get('user/users/');
    const ida = a.headers.get('x-request-id');
    const idb = b.headers.get('x-request-id');
    expect(ida).toBeTruthy();
    expect(idb).toBeTruthy();
    expect(ida).not.toBe(idb);
  });
});

describe('CORS', () => {
  it('answers a preflight with the allowed origin, methods and headers', async () => {
    const res = await fetch(app.api.url('user/users/u1'), {
      method: 'OPTIONS',
      headers: { origin: 'https://example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-api-token, content-type, authorization' },
    });
    expect(res.status).toBeLessThan(300);
    expect(res.headers.get('access-control-allow-origin')).toMatch(/^(\*|https:\/\/example\.com)$/);
    const methods = (res.headers.get('access-control-allow-methods') ?? '').toUpperCase();
    for (const m of ['GET', 'POST', 'PUT', 'DELETE']) expect(methods).toContain(m);
    const headers = (res.headers.get('access-control-allow-headers') ?? '').toLowerCase();
    for (const h of ['x-api-token', 'content-type', 'authorization']) expect(headers).toContain(h);
  });

  it('allows the origin on ordinary responses, errors included, and exposes the request id', async () => {
    const ok = await app.api.withHeaders({ origin: 'https://example.com' }).get('user/users/');
    expect(ok.headers.get('access-control-allow-origin')).toMatch(/^(\*|https:\/\/example\.com)$/);
    expect((ok.headers.get('access-control-expose-headers') ?? '').toLowerCase()).toContain('x-request-id');
    const denied = await request('GET', app.api.url('user/users/'), undefined, { origin: 'https://example.com' });
    expect(denied.status).toBe(403);
    expect(denied.headers.get('access-control-allow-origin')).toMatch(/^(\*|https:\/\/example\.com)$/);
  });
});

describe('health', () => {
  it('GET /healthz answers 200 without any token', async () => {
    const res = await request('GET', `${baseUrl()}/healthz`, undefined, {});
    expectEnvelope(res, 200);
    expect(res.body.data.alive).toBe(true);
  });

  it('GET /readyz reports the database and bus ready', async () => {
    const res = await request('GET', `${baseUrl()}/readyz`, undefined, {});
    expectEnvelope(res, 200);
    expect(res.body.data.database).toBe(true);
    expect(res.body.data.bus).toBe(true);
  });
});

describe('configuration (own server processes)', () => {
  let small: SpawnedServer;
  beforeAll(async () => {
    small = await spawnServer({ BODY_LIMIT: '2kb' });
  });
  afterAll(async () => {
    await small?.stop();
  });

  it('BODY_LIMIT: a larger body gets 413 in the envelope, a smaller one passes', async () => {
    const created = await manage('createapplication', { name: 'small' }, small.url);
    expect(created.status).toBe(200);
    const token = (await manage('createtoken', { applicationid: created.body.data.appid }, small.url)).body.data.token as string;
    const url = `${small.url}/api/v3/${created.body.data.appid}/user/users/big`;
    const big = await request('POST', url, { displayname: 'B', pictureurl: `https://x.test/${'a'.repeat(3000)}` }, { 'x-api-token': token });
    expectEnvelope(big, 413);
    const fits = await request('POST', url, { displayname: 'B', pictureurl: `https://x.test/${'a'.repeat(1000)}` }, { 'x-api-token': token });
    expectEnvelope(fits, 200);
    expect(fits.body.data.pictureurl).toHaveLength(1000 + 'https://x.test/'.length);
  });

  let scratch: string;
  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'engage-badenv-'));
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('a bad environment value stops the start with a message naming the variable', async () => {
    const cases = [
      ['BODY_LIMIT', 'lots'],
      ['PORT', 'eighty'],
      ['MANAGE_TOKEN', 'short'],
      ['DATABASE_URL', 'mysql://localhost/db'],
      ['DATABASE_POOLER', 'statement'],
      ['DATABASE_POOL_SIZE', '0'],
      ['WEBHOOK_LOG_RETENTION', '7 days'],
    ] as const;
    const outcomes = await Promise.all(
      cases.map(([name, value]) =>
        spawnServer({ [name]: value, DATA_DIR: scratch }).then(
          async (s) => {
            await s.stop();
            return 'started';
          },
          (err: Error) => err.message,
        ),
      ),
    );
    cases.forEach(([name], i) => {
      expect(outcomes[i]).not.toBe('started');
      expect(outcomes[i]).toContain(name);
      expect(outcomes[i]).toMatch(/exited with 1/);
    });
  }, 90_000);
});
