import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newApp, uid, type TestApp } from '../helpers/api.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { connect } from '../realtime/ws-client.js';
import { eventually, startReceiver, type Receiver } from '../webhooks/receiver.js';
import { familyTypes, parseSamples, total, type Sample } from './prometheus-text.js';

const TOKEN = 'metrics-token-0123456789abcdef';
const onPostgres = process.env['DATABASE_URL'] !== undefined;

describe('GET /metrics', () => {
  let server: SpawnedServer;
  let a: TestApp;
  const receivers: Receiver[] = [];
  beforeAll(async () => {
    server = await spawnServer({ METRICS_TOKEN: TOKEN, WEBHOOK_FAILURE_LIMIT: '1' });
    a = await newApp({}, server.url);
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await server?.stop();
  });

  const scrape = async () => {
    const res = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    return res.text();
  };

  it('refuses a scrape without the METRICS_TOKEN (401) or with another (403)', async () => {
    const none = await fetch(`${server.url}/metrics`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    expect((await none.json()).code).toBe(401);
    const wrong = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}x` } });
    expect(wrong.status).toBe(403);
    const text = await (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
    expect(text).toContain('engage_http_request_duration_seconds');
  });

  it('counts what the server did, by route pattern, writer and direction', async () => {
    const { api } = a;
    // Database-wide figures: other test files may share the database.
    const disabledBefore = total(parseSamples(await scrape()), 'engage_webhook_hooks_disabled');
    const good = await startReceiver(() => 200);
    const bad = await startReceiver(() => 500);
    receivers.push(good, bad);
    for (const [label, url] of [
      ['good', good.url],
      ['bad', bad.url],
    ]) {
      expect((await api.post('webhook/hooks', { label, url, enabled: true, type: 'postpublish', events: ['chatspeech'] })).status).toBe(200);
    }

    const room = (await api.post('chat/rooms', { name: uid('room') })).body.data.id as string;
    const userid = uid('u');
    expect((await api.post(`chat/rooms/${room}/join`, { userid, displayname: 'Speaker' })).status).toBe(200);
    const ws = await connect(server.url, a.appid, a.token);
    expect(await ws.subscribe(`room:${room}`)).toMatchObject({ type: 'subscribed' });
    for (let i = 0; i < 3; i++) expect((await api.post(`chat/rooms/${room}/command`, { userid, command: `hello ${i}` })).status).toBe(200);
    await ws.collect((f) => f['type'] === 'event', 3);

    const conversationid = uid('conv');
    const handle = uid('h');
    expect((await api.post('comment/conversations', { conversationid, property: 'test', moderation: 'post' })).status).toBe(200);
    const original = await api.post(`comment/conversations/${conversationid}/comments`, { userid: 'alice', displayname: 'Alice', handle, body: 'original' });
    expect(original.status).toBe(200);
    expect((await api.post(`comment/conversations/${conversationid}/comments/${original.body.data.id}`, { userid: 'bob', displayname: 'Bob', body: `hi @${handle}` })).status).toBe(200);

    const poll = await api.post('poll/poll/create', { title: 'Colour' });
    const choices = await api.post(`poll/poll/${poll.body.data.id}/choice`, { choices: [{ title: 'Red' }] });
    expect((await api.post(`poll/poll/${poll.body.data.id}/response`, { userid: 'voter', choiceid: choices.body.data[0].id })).status).toBe(200);

    expect((await api.post('telemetry/contexts/match-1/presence/viewers/heartbeat', { userid: 'viewer' })).status).toBe(200);
    expect((await api.get('no/such/endpoint')).status).toBe(404);
    await good.waitFor(1);
    await bad.waitFor(1);

    // Webhook figures of the delivery thread (Postgres) reach the main thread within a second.
    let samples: Sample[] = [];
    await eventually(
      async () => (samples = parseSamples(await scrape())),
      (s) =>
        total(s, 'engage_webhook_failures_total') >= 1 &&
        total(s, 'engage_webhook_hooks_disabled') > disabledBefore &&
        total(s, 'engage_group_commit_batch_size_count', { writer: 'notifications' }) >= 1,
    );
    const count = (name: string, labels: Record<string, string> = {}) => total(samples, name, labels);

    const command = { method: 'POST', route: '/api/v3/{appid}/chat/rooms/{roomid}/command', status: '200' };
    expect(count('engage_http_request_duration_seconds_count', command)).toBe(3);
    expect(count('engage_http_request_duration_seconds_sum', command)).toBeGreaterThan(0);
    expect(count('engage_http_request_duration_seconds_count', { route: 'unmatched', status: '404' })).toBeGreaterThanOrEqual(1);
    // Patterns, never raw URLs.
    expect(samples.some((s) => s.labels['route']?.includes(room) || s.labels['route']?.includes(a.appid))).toBe(false);

    expect(count('engage_ws_connections')).toBe(1);
    expect(count('engage_ws_subscriptions')).toBe(1);
    expect(count('engage_ws_frames_received_total')).toBeGreaterThanOrEqual(1);
    expect(count('engage_ws_frames_sent_total', { kind: 'direct' })).toBeGreaterThanOrEqual(2);
    expect(count('engage_ws_frames_sent_total', { kind: 'published' })).toBeGreaterThanOrEqual(3);
    expect(samples.some((s) => s.name === 'engage_ws_slow_consumers_closed_total')).toBe(true);

    expect(count('engage_bus_messages_total', { direction: 'published' })).toBeGreaterThanOrEqual(3);
    expect(samples.some((s) => s.name === 'engage_bus_reconnects_total')).toBe(true);

    for (const writer of ['chat_feed', 'comments', 'polls_votes', 'notifications', 'webhook_outbox']) {
      expect(count('engage_group_commit_batch_size_count', { writer }), writer).toBeGreaterThanOrEqual(1);
      expect(count('engage_group_commit_batch_size_sum', { writer }), writer).toBeGreaterThanOrEqual(1);
      expect(count('engage_group_commit_duration_seconds_count', { writer }), writer).toBeGreaterThanOrEqual(1);
    }

    expect(count('engage_webhook_attempts_total')).toBeGreaterThanOrEqual(2);
    expect(count('engage_webhook_failures_total')).toBeGreaterThanOrEqual(1);
    expect(count('engage_webhook_hooks_disabled')).toBeGreaterThanOrEqual(disabledBefore + 1);
    expect(samples.some((s) => s.name === 'engage_webhook_queue_depth')).toBe(true);

    // With Redis the gauge counts every context of the shared Redis (the cluster's), which other files' servers add to at the same time.
    if (process.env['REDIS_URL'] === undefined) expect(count('engage_telemetry_contexts')).toBe(1);
    else expect(count('engage_telemetry_contexts')).toBeGreaterThanOrEqual(1);
    expect(count('nodejs_eventloop_lag_seconds')).toBeGreaterThan(0);
    expect(count('process_cpu_seconds_total')).toBeGreaterThan(0);
    expect(count('nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    if (onPostgres) {
      expect(count('engage_db_pool_connections', { pool: 'main', state: 'total' })).toBeGreaterThanOrEqual(1);
      expect(count('engage_db_pool_connections', { pool: 'webhooks', state: 'total' })).toBeGreaterThanOrEqual(1);
      expect(samples.some((s) => s.name === 'engage_db_pool_connections' && s.labels['state'] === 'waiting')).toBe(true);
    } else {
      expect(samples.some((s) => s.name === 'engage_db_pool_connections')).toBe(false);
    }

    ws.close();
    await eventually(
      async () => parseSamples(await scrape()),
      (s) => total(s, 'engage_ws_connections') === 0 && total(s, 'engage_ws_subscriptions') === 0,
    );
  });

  it('declares each family once with its type', async () => {
    const types = familyTypes(await scrape());
    expect(types.get('engage_http_request_duration_seconds')).toBe('histogram');
    expect(types.get('engage_group_commit_batch_size')).toBe('histogram');
    expect(types.get('engage_ws_connections')).toBe('gauge');
    expect(types.get('engage_webhook_attempts_total')).toBe('counter');
  });
});
