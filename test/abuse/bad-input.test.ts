import { beforeAll, describe, expect, it } from 'vitest';
import { newApp, uid, type Client } from '../helpers/api.js';

let api: Client;
beforeAll(async () => {
  ({ api } = await newApp());
});

/** Dates no Postgres timestamp holds: year 0, far before year 1, the largest JavaScript date, year 10000 in milliseconds. */
const OUT_OF_RANGE = ['0000-01-01T00:00:00Z', '-100000-01-01T00:00:00Z', '+275760-09-13T00:00:00.000Z', 253402300800000, '253402300800000'];

describe('poll dates', () => {
  it('refuses dates outside the years 1 to 9999 with 400 naming the field, on create and on update', async () => {
    const created = await api.post('poll/poll/create', { title: uid('poll') });
    expect(created.status).toBe(200);
    const pollid = created.body.data.id as string;
    for (const field of ['whenpollopens', 'whenpollcloses']) {
      for (const value of OUT_OF_RANGE) {
        const create = await api.post('poll/poll/create', { title: uid('poll'), [field]: value });
        expect(create.status, `create ${field} ${value}`).toBe(400);
        expect(Object.keys(create.body.errors), `create ${field} ${value}`).toEqual([field]);
        const update = await api.put(`poll/poll/${pollid}/update`, { [field]: value });
        expect(update.status, `update ${field} ${value}`).toBe(400);
        expect(Object.keys(update.body.errors), `update ${field} ${value}`).toEqual([field]);
      }
    }
    // In range: stored and read back as sent.
    const inRange = await api.put(`poll/poll/${pollid}/update`, { whenpollopens: '1000-01-01T00:00:00.000Z', whenpollcloses: '9999-12-31T23:59:59.999Z' });
    expect(inRange.status).toBe(200);
    expect(inRange.body.data).toMatchObject({ whenpollopens: '1000-01-01T00:00:00.000Z', whenpollcloses: '9999-12-31T23:59:59.999Z' });
  });
});
