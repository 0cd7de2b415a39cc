import { beforeAll, describe, expect, it } from 'vitest';
import { newApp, request, uid, type TestApp } from '../helpers/api.js';
import { userToken } from '../foundation/util.js';

describe('telemetry', () => {
  let a: TestApp;
  beforeAll(async () => {
    a = await newApp();
  });
  const ctx = (contextid: string) => `telemetry/contexts/${encodeURIComponent(contextid)}`;

  it('counts distinct users of a presence key and answers with the signal', async () => {
    const contextid = uid('ctx');
    const first = await a.api.post(`${ctx(contextid)}/presence/viewers/heartbeat`, { userId: 'u1' });
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ kind: 'telemetry.signal', contextid, signal: { key: 'viewers', kind: 'presence', active: 1, windowvalue: 1, total: 1, average: 1 } });
    await a.api.post(`${ctx(contextid)}/presence/viewers/heartbeat`, { userid: 'u1' });
    const third = await a.api.post(`${ctx(contextid)}/presence/viewers/heartbeat`, { userid: 'u2' });
    expect(third.body.data.signal).toMatchObject({ active: 2, windowvalue: 3, total: 3, average: 1.5, intensity: 0.1 });
  });

  it('sums increments (by defaults to 1, may arrive as a string) and averages per active user', async () => {
    const contextid = uid('ctx');
    await a.api.post(`${ctx(contextid)}/metrics/cheers/increment`, { userid: 'u1' });
    await a.api.post(`${ctx(contextid)}/metrics/cheers/increment`, { userid: 'u1', by: '4' });
    const res = await a.api.post(`${ctx(contextid)}/metrics/cheers/increment`, { userid: 'u2', by: 5 });
    expect(res.body.data.signal).toMatchObject({ key: 'cheers', kind: 'metric', active: 2, windowvalue: 10, total: 10, average: 5 });
  });

  it('averages gauge samples in 0..1', async () => {
    const contextid = uid('ctx');
    await a.api.post(`${ctx(contextid)}/gauges/mood/sample`, { userid: 'u1', value: 0.2 });
    const res = await a.api.post(`${ctx(contextid)}/gauges/mood/sample`, { userid: 'u2', value: '0.6' });
    expect(res.body.data.signal).toMatchObject({ key: 'mood', kind: 'gauge', active: 2, windowvalue: 0.8, total: 0.8, average: 0.4 });
  });

  it('refuses bad input with 400 naming the field', async () => {
    const contextid = uid('ctx');
    const cases: [string, unknown, string][] = [
      [`${ctx(contextid)}/presence/viewers/heartbeat`, {}, 'userid'],
      [`${ctx(contextid)}/presence/viewers/heartbeat`, { userid: '  ' }, 'userid'],
      [`${ctx(contextid)}/metrics/m/increment`, { userid: 'u', by: 1.5 }, 'by'],
      [`${ctx(contextid)}/metrics/m/increment`, { userid: 'u', by: 'lots' }, 'by'],
      [`${ctx(contextid)}/gauges/g/sample`, { userid: 'u', value: 1.5 }, 'value'],
      [`${ctx(contextid)}/gauges/g/sample`, { userid: 'u' }, 'value'],
      [`${ctx(contextid)}/batch`, { userid: 'u', ops: 'x' }, 'ops'],
      [`${ctx(contextid)}/batch`, { userid: 'u', ops: [] }, 'ops'],
      [`${ctx('x'.repeat(251))}/presence/k/heartbeat`, { userid: 'u' }, 'contextid'],
    ];
    for (const [path, body, field] of cases) {
      const res = await a.api.post(path, body);
      expect(res.status, path).toBe(400);
      expect(Object.keys(res.body.errors), path).toEqual([field]);
    }
    expect((await a.api.get(ctx(contextid))).body.data.signals).toEqual([]);
  });

  it('applies a batch op by op and reports the rejected ones', async () => {
    const contextid = uid('ctx');
    const res = await a.api.post(`${ctx(contextid)}/batch`, {
      userid: 'u1',
      ops: [
        { op: 'heartbeat', key: 'viewers' },
        { op: 'increment', key: 'cheers', by: 3 },
        { op: 'sample', key: 'mood', value: 0.5 },
        { op: 'sample', key: 'mood', value: 7 },
        { op: 'jump', key: 'x' },
        { Op: 'increment' },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ kind: 'telemetry.batchresult', accepted: 3, rejected: 3 });
    expect(res.body.data.errors).toEqual([
      { index: 3, field: 'value', message: 'must be between 0 and 1' },
      { index: 4, field: 'op', message: 'must be increment, sample or heartbeat' },
      { index: 5, field: 'key', message: 'is required' },
    ]);
    const snapshot = await a.api.get(ctx(contextid));
    expect(snapshot.body.data.signals.map((s: { key: string; kind: string; windowvalue: number }) => [s.key, s.kind, s.windowvalue])).toEqual([
      ['cheers', 'metric', 3],
      ['mood', 'gauge', 0.5],
      ['viewers', 'presence', 1],
    ]);
  });

  it('returns a snapshot with contextid, asof, cursor and signals; URL-encoded ids round-trip', async () => {
    const contextid = `match 42/ü ${uid()}`;
    await a.api.post(`${ctx(contextid)}/presence/${encodeURIComponent('home team')}/heartbeat`, { userid: 'u1' });
    const res = await a.api.get(ctx(contextid));
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ kind: 'telemetry.snapshot', contextid, cursor: '1', signals: [{ key: 'home team', kind: 'presence', active: 1 }] });
    expect(new Date(res.body.data.asof).toISOString()).toBe(res.body.data.asof);
    const empty = await a.api.get(ctx(uid('never')));
    expect(empty.body.data).toMatchObject({ cursor: '0', signals: [] });
  });

  it('needs the API token, and a user token may act only as its own user', async () => {
    const contextid = uid('ctx');
    const denied = await request('POST', a.api.url(`${ctx(contextid)}/presence/k/heartbeat`), { userid: 'u1' });
    expect(denied.status).toBe(403);
    const jwt = await userToken(a.jwtsecret, { userid: 'u1' });
    const asOther = await a.api.withHeaders({ authorization: `Bearer ${jwt}` }).post(`${ctx(contextid)}/presence/k/heartbeat`, { userid: 'u2' });
    expect(asOther.status).toBe(403);
    const asSelf = await a.api.withHeaders({ authorization: `Bearer ${jwt}` }).post(`${ctx(contextid)}/presence/k/heartbeat`, { userid: 'u1' });
    expect(asSelf.status).toBe(200);
  });

  it('limits a context to 100 signals', async () => {
    const contextid = uid('ctx');
    const ops = Array.from({ length: 100 }, (_, i) => ({ op: 'increment', key: `k${i}` }));
    expect((await a.api.post(`${ctx(contextid)}/batch`, { userid: 'u', ops })).body.data.accepted).toBe(100);
    const over = await a.api.post(`${ctx(contextid)}/metrics/k100/increment`, { userid: 'u' });
    expect(over.status).toBe(400);
    expect(over.body.errors).toHaveProperty('key');
    expect((await a.api.post(`${ctx(contextid)}/metrics/k99/increment`, { userid: 'u' })).status).toBe(200);
  });

  it('judges each new key of a batch against the context as the batch leaves it, never going past 100 signals', async () => {
    const contextid = uid('ctx');
    const snapshot = async () => (await a.api.get(ctx(contextid))).body.data as { signals: { key: string; kind: string; windowvalue: number }[] };
    const windowValue = async (key: string) => (await snapshot()).signals.find((s) => s.key === key)?.windowvalue;
    const first = Array.from({ length: 98 }, (_, i) => ({ op: 'increment', key: `k${i}` }));
    expect((await a.api.post(`${ctx(contextid)}/batch`, { userid: 'u', ops: first })).body.data.accepted).toBe(98);

    // 98 held: n1 and n2 fit (n1 twice counts once), n3 would be the 101st; ops on held keys still apply.
    const batch = await a.api.post(`${ctx(contextid)}/batch`, {
      userid: 'u',
      ops: [
        { op: 'increment', key: 'n1' },
        { op: 'jump', key: 'x' },
        { op: 'increment', key: 'n1' },
        { op: 'heartbeat', key: 'n2' },
        { op: 'sample', key: 'n3', value: 0.5 },
        { op: 'increment', key: 'k0', by: 5 },
      ],
    });
    expect(batch.status).toBe(200);
    expect(batch.body.data).toMatchObject({ accepted: 4, rejected: 2 });
    expect(batch.body.data.errors).toEqual([
      { index: 1, field: 'op', message: expect.any(String) },
      { index: 4, field: 'key', message: expect.stringContaining('limit') },
    ]);
    const signals = (await snapshot()).signals;
    expect(signals).toHaveLength(100);
    expect(signals.some((s) => s.key === 'n3')).toBe(false);
    expect(await windowValue('n1')).toBe(2);
    expect(await windowValue('k0')).toBe(6);

    // Full: a batch of new keys applies none of them.
    const full = await a.api.post(`${ctx(contextid)}/batch`, {
      userid: 'u',
      ops: [
        { op: 'increment', key: 'n4' },
        { op: 'increment', key: 'n5' },
      ],
    });
    expect(full.body.data).toMatchObject({ accepted: 0, rejected: 2 });
    expect((await snapshot()).signals).toHaveLength(100);
  });
});
