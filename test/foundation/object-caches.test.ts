import { describe, expect, it } from 'vitest';
import { ReplicatedCache } from '../../src/cache/replicated-cache.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { internal } from '../../src/internal-messages.js';
import { createLogger } from '../../src/logger.js';
import { MemoryBus } from '../../src/realtime/memory-bus.js';
import { uid } from '../helpers/api.js';
import { ownServerForSuite } from '../helpers/own-server.js';
import { join, makeRoom, say } from '../chat/helpers.js';

describe('USER_CACHE_ENTRIES and ROOM_CACHE_ENTRIES', () => {
  it('default to 50,000 users and 20,000 rooms, take 0, and refuse what is not a whole number', () => {
    expect(loadConfig({})).toMatchObject({ userCacheEntries: 50_000, roomCacheEntries: 20_000 });
    expect(loadConfig({ USER_CACHE_ENTRIES: '0', ROOM_CACHE_ENTRIES: '7' })).toMatchObject({ userCacheEntries: 0, roomCacheEntries: 7 });
    expect(() => loadConfig({ USER_CACHE_ENTRIES: 'lots' })).toThrow(ConfigError);
    expect(() => loadConfig({ ROOM_CACHE_ENTRIES: '-1' })).toThrow(/ROOM_CACHE_ENTRIES/);
  });

  it('a cache of 0 entries keeps nothing: every load reads', async () => {
    const cache = new ReplicatedCache<string>(new MemoryBus(createLogger('silent')), { invalidation: internal.userChanged, limit: 0 });
    let reads = 0;
    const read = async () => `v${++reads}`;
    expect(await cache.load('k', read)).toBe('v1');
    expect(cache.peek('k')).toBeUndefined();
    expect(await cache.load('k', read)).toBe('v2');
  });
});

describe('a server that keeps no user, room or room effect in memory', () => {
  const own = ownServerForSuite({ USER_CACHE_ENTRIES: '0', ROOM_CACHE_ENTRIES: '0', CROWD_READS_CACHE: '1kb' });

  it('answers every read from the database, each change seen by the next read', async () => {
    const { api } = own.app;
    const userid = uid('ada');
    expect((await api.post(`user/users/${userid}`, { displayname: 'Ada' })).status).toBe(200);
    expect((await api.get(`user/users/${userid}`)).body.data.displayname).toBe('Ada');
    expect((await api.post(`user/users/${userid}`, { displayname: 'Ada L' })).status).toBe(200);
    expect((await api.get(`user/users/${userid}`)).body.data.displayname).toBe('Ada L');

    const room = await makeRoom(api, { name: 'before' });
    expect((await api.get(`chat/rooms/${room.id}`)).body.data.name).toBe('before');
    expect((await api.post(`chat/rooms/${room.id}`, { name: 'after' })).status).toBe(200);
    expect((await api.get(`chat/rooms/${room.id}`)).body.data.name).toBe('after');

    await join(api, room.id, userid);
    await say(api, room.id, userid, 'first');
    expect((await api.post(`chat/rooms/${room.id}/mute`, { userid, applyeffect: true })).status).toBe(200);
    expect((await api.post(`chat/rooms/${room.id}/command`, { userid, command: 'muted now' })).status).toBe(403);
    expect((await api.post(`chat/rooms/${room.id}/mute`, { userid, applyeffect: false })).status).toBe(200);
    expect((await api.post(`chat/rooms/${room.id}/command`, { userid, command: 'heard again' })).status).toBe(200);
  });
});
