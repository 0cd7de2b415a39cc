import { beforeAll, describe, expect, it } from 'vitest';
import { newApp, type Client } from '../helpers/api.js';

let api: Client;
const hook = (fields: Record<string, unknown> = {}) => ({ label: 'main', url: 'http://127.0.0.1:9/hook', enabled: true, type: 'postpublish', events: ['chatspeech'], ...fields });

beforeAll(async () => {
  ({ api } = await newApp());
});

describe('webhook records', () => {
  it('refuses a body missing any required field, naming each', async () => {
    const res = await api.post('webhook/hooks', {});
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.errors).sort()).toEqual(['enabled', 'events', 'label', 'type', 'url']);
  });

  it('refuses unknown event names, types, entities and non-http urls', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ events: ['chatspeech', 'nonsense'] }, 'events'],
      [{ type: 'sometimes' }, 'type'],
      [{ type: 7 }, 'type'],
      [{ entities: ['poll'] }, 'entities'],
      [{ url: 'ftp://example.com/x' }, 'url'],
      [{ enabled: 'perhaps' }, 'enabled'],
    ];
    for (const [fields, field] of cases) {
      const res = await api.post('webhook/hooks', hook({ label: 'bad', ...fields }));
      expect(res.status, JSON.stringify(fields)).toBe(400);
      expect(res.body.errors).toHaveProperty(field);
    }
  });

  it('accepts events: [] and returns it as given', async () => {
    const { api: own } = await newApp();
    const created = await own.post('webhook/hooks', hook({ label: 'quiet', events: [] }));
    expect(created.status).toBe(200);
    expect(created.body.data.events).toEqual([]);
    const listed = await own.get('webhook/hooks');
    expect(listed.body.data.webhooks.map((w: { events: string[] }) => w.events)).toEqual([[]]);
  });

  it('creates, stores names prefixed, replaces by label, lists, updates and deletes', async () => {
    const { api: own } = await newApp();
    const created = await own.post('webhook/hooks', {
      Label: 'one',
      URL: 'http://127.0.0.1:9/a',
      Enabled: 'true',
      Type: 0,
      Events: ['speech', 'reply', 'commentpublished'],
      RequiredCustomTags: ['vip'],
      Entities: ['chat'],
    });
    expect(created.status).toBe(200);
    expect(created.body.message).toBe('Inserted');
    const id = created.body.data.id;
    expect(created.body.data).toMatchObject({
      kind: 'webhook.webhook',
      label: 'one',
      type: 'prepublish',
      enabled: true,
      events: ['chatspeech', 'chatreply', 'commentpublished'],
      requiredcustomtags: ['vip'],
      entities: ['chat'],
    });

    const replaced = await own.post('webhook/hooks', { label: 'one', url: 'http://127.0.0.1:9/b', enabled: false, type: '1', events: 'exit,enter' });
    expect(replaced.status).toBe(200);
    expect(replaced.body.data).toMatchObject({ id, url: 'http://127.0.0.1:9/b', enabled: false, type: 'postpublish', events: ['chatexit', 'chatenter'], requiredcustomtags: [] });

    await own.post('webhook/hooks', hook({ label: 'two' }));
    const listed = await own.get('webhook/hooks?Limit=1');
    expect(listed.body.data).toMatchObject({ kind: 'list.webhooks', itemcount: 1, more: true });
    const next = await own.get(`webhook/hooks?limit=1&Cursor=${listed.body.data.cursor}`);
    expect([listed.body.data.webhooks[0].label, next.body.data.webhooks[0].label].sort()).toEqual(['one', 'two']);
    expect(next.body.data.more).toBe(false);

    const updated = await own.put(`webhook/hooks/${id}`, hook({ label: 'renamed', events: ['roomclosed'] }));
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ id, label: 'renamed', events: ['chatroomclosed'], enabled: true });
    const clash = await own.put(`webhook/hooks/${id}`, hook({ label: 'two' }));
    expect(clash.status).toBe(409);
    expect(clash.body.errors).toHaveProperty('label');
    const incomplete = await own.put(`webhook/hooks/${id}`, { label: 'x' });
    expect(incomplete.status).toBe(400);
    expect(incomplete.body.errors).toHaveProperty('url');

    const deleted = await own.delete(`webhook/hooks/${id}`);
    expect(deleted.status).toBe(200);
    expect((await own.get('webhook/hooks')).body.data.webhooks.map((w: { label: string }) => w.label)).toEqual(['two']);
    expect((await own.put(`webhook/hooks/${id}`, hook())).status).toBe(404);
    expect((await own.get(`webhook/hooks/${id}/logentries`)).status).toBe(404);
  });

  it('keeps apps apart', async () => {
    const created = await api.post('webhook/hooks', hook({ label: 'mine' }));
    const { api: other } = await newApp();
    expect((await other.delete(`webhook/hooks/${created.body.data.id}`)).status).toBe(404);
    expect((await other.get('webhook/hooks')).body.data.webhooks).toEqual([]);
  });
});
