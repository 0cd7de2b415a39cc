import { describe, expect, it } from 'vitest';
import { baseUrl, newApp, request } from './helpers/api.js';

describe('smoke', () => {
  it('serves healthz and an app route', async () => {
    const health = await request('GET', `${baseUrl()}/healthz`);
    expect(health.body.data.alive).toBe(true);
    const { api } = await newApp();
    const created = await api.post('user/users/u1', { displayname: 'A' });
    expect(created.status).toBe(200);
    expect(created.body.data.userid).toBe('u1');
  });
});
