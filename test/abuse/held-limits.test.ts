import { describe, expect, it } from 'vitest';
import { uid } from '../helpers/api.js';
import { ownServerForSuite } from '../helpers/own-server.js';

describe('what an application can make the server hold', () => {
  const own = ownServerForSuite({ WEBHOOK_MAX_HOOKS: '2' });

  it('webhooks per application (WEBHOOK_MAX_HOOKS): past the cap a new hook is 409 naming the label; replacing one by its label still works', async () => {
    const hook = (label: string) => ({ label, url: 'https://example.com/hook', enabled: false, type: 'postpublish', events: ['chatspeech'] });
    const first = uid('hook');
    expect((await own.app.api.post('webhook/hooks', hook(first))).status).toBe(200);
    expect((await own.app.api.post('webhook/hooks', hook(uid('hook')))).status).toBe(200);
    const third = await own.app.api.post('webhook/hooks', hook(uid('hook')));
    expect(third.status).toBe(409);
    expect(third.body.errors.label).toMatch(/beyond 2/);
    const replaced = await own.app.api.post('webhook/hooks', { ...hook(first), url: 'https://example.com/other' });
    expect(replaced.status).toBe(200);
    expect(replaced.body.message).toBe('Replaced');
    expect((await own.app.api.get('webhook/hooks')).body.data.webhooks).toHaveLength(2);
  });
});
