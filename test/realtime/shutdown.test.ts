import { describe, expect, it } from 'vitest';
import { newApp } from '../helpers/api.js';
import { spawnServer } from '../helpers/spawn.js';
import { connect } from './ws-client.js';

describe('server shutdown', () => {
  it('closes open sockets with 1001', async () => {
    const server = await spawnServer();
    const a = await newApp({}, server.url);
    const client = await connect(server.url, a.appid, a.token);
    await client.subscribe('context:c');
    await server.stop();
    expect((await client.closed).code).toBe(1001);
  });
});
