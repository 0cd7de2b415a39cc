import { beforeAll, describe, expect, it } from 'vitest';
import { newApp, uid, type Client } from '../helpers/api.js';

let api: Client;

beforeAll(async () => {
  ({ api } = await newApp());
});

async function pollWithChoices(fields: Record<string, unknown> = {}, titles = ['Red', 'Blue']) {
  const created = await api.post('poll/poll/create', { title: 'Favourite colour', ...fields });
  expect(created.status).toBe(200);
  const added = await api.post(`poll/poll/${created.body.data.id}/choice`, { choices: titles.map((title) => ({ title })) });
  expect(added.status).toBe(200);
  return { pollid: created.body.data.id as string, choices: added.body.data.map((c: { id: string }) => c.id) as string[] };
}

describe('poll records', () => {
  it('creates, reads, finds by customid and updates a poll', async () => {
    const customid = uid('poll');
    const created = await api.post('poll/poll/create', { Title: 'Q1', customId: customid, allowMultipleChoicesPerUser: 'true', maxTotalResponsesPerUser: '3' });
    expect(created.status).toBe(200);
    const poll = created.body.data;
    expect(poll).toMatchObject({
      kind: 'poll.poll',
      title: 'Q1',
      customid: customid,
      status: 'published',
      allowmultiplechoicesperuser: true,
      maxtotalresponsesperuser: 3,
      maxresponsesperchoiceperuser: 1,
      totalresponses: 0,
      choices: [],
    });

    expect((await api.get(`poll/poll/${poll.id}`)).body.data.title).toBe('Q1');
    expect((await api.get(`poll/pollbycustomid/${customid}`)).body.data.id).toBe(poll.id);

    const updated = await api.put(`poll/poll/${poll.id}/update`, { title: 'Q1 renamed', whenpollcloses: '2030-01-01T00:00:00.000Z' });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ title: 'Q1 renamed', whenpollcloses: '2030-01-01T00:00:00.000Z', allowmultiplechoicesperuser: true });
  });

  it('takes sortchoices as the string the SDKs send, booleans too', async () => {
    const random = await api.post('poll/poll/create', { title: 's', sortchoices: 'random' });
    expect(random.status).toBe(200);
    expect(random.body.data.sortchoices).toBe('random');
    expect((await api.get(`poll/poll/${random.body.data.id}`)).body.data.sortchoices).toBe('random');
    expect((await api.post('poll/poll/create', { title: 's' })).body.data.sortchoices).toBe('none');
    expect((await api.post('poll/poll/create', { title: 's', sortchoices: true })).body.data.sortchoices).toBe('position');
    expect((await api.post('poll/poll/create', { title: 's', sortchoices: 'false' })).body.data.sortchoices).toBe('none');
    const updated = await api.put(`poll/poll/${random.body.data.id}/update`, { sortchoices: 'position' });
    expect(updated.body.data.sortchoices).toBe('position');
    expect((await api.post('poll/poll/create', { title: 's', sortchoices: 'in any way!' })).body.errors).toHaveProperty('sortchoices');
  });

  it('refuses bad input naming the field', async () => {
    const noTitle = await api.post('poll/poll/create', { description: 'x' });
    expect(noTitle.status).toBe(400);
    expect(noTitle.body.errors).toHaveProperty('title');
    const badStatus = await api.post('poll/poll/create', { title: 'x', status: 'maybe' });
    expect(badStatus.status).toBe(400);
    expect(badStatus.body.errors).toHaveProperty('status');
    const badWhen = await api.post('poll/poll/create', { title: 'x', whenpollopens: 'soon' });
    expect(badWhen.status).toBe(400);
    expect(badWhen.body.errors).toHaveProperty('whenpollopens');
  });

  it('refuses a customid already used', async () => {
    const customid = uid('dup');
    expect((await api.post('poll/poll/create', { title: 'a', customid })).status).toBe(200);
    const second = await api.post('poll/poll/create', { title: 'b', customid });
    expect(second.status).toBe(409);
    expect(second.body.errors).toHaveProperty('customid');
  });

  it('lists unpublished polls only when asked', async () => {
    const { api: own } = await newApp();
    const pub = (await own.post('poll/poll/create', { title: 'pub' })).body.data;
    const draft = (await own.post('poll/poll/create', { title: 'draft', status: 'unpublished' })).body.data;
    const plain = await own.get('poll/poll');
    expect(plain.body.data.kind).toBe('list.polls');
    expect(plain.body.data.polls.map((p: { id: string }) => p.id)).toEqual([pub.id]);
    const all = await own.get('poll/poll?IncludeUnpublished=true&limit=1');
    expect(all.body.data.polls.map((p: { id: string }) => p.id)).toEqual([draft.id]);
    expect(all.body.data.more).toBe(true);
    const page2 = await own.get(`poll/poll?IncludeUnpublished=true&limit=1&cursor=${all.body.data.cursor}`);
    expect(page2.body.data.polls.map((p: { id: string }) => p.id)).toEqual([pub.id]);
    expect(page2.body.data.more).toBe(false);
  });

  it('deletes a poll', async () => {
    const { pollid } = await pollWithChoices();
    const deleted = await api.delete(`poll/poll/${pollid}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.data.kind).toBe('deleted.poll');
    expect((await api.get(`poll/poll/${pollid}`)).status).toBe(404);
  });
});

describe('choices', () => {
  it('adds one or several, lists them in position order, deletes one', async () => {
    const poll = (await api.post('poll/poll/create', { title: 'order' })).body.data;
    const one = await api.post(`poll/poll/${poll.id}/choice`, { title: 'Third', position: 30 });
    expect(one.status).toBe(200);
    // data is the array of the poll's choices in position order (settled from the SDKs).
    expect(one.body.data).toHaveLength(1);
    const many = await api.post(`poll/poll/${poll.id}/choice`, { choices: [{ title: 'First', position: 10 }, { title: 'Second', position: 20 }, { title: 'Last' }] });
    expect(many.body.data.map((c: { title: string }) => c.title)).toEqual(['First', 'Second', 'Third', 'Last']);
    const listed = await api.get(`poll/poll/${poll.id}/choices`);
    expect(listed.body.data.choices.map((c: { title: string }) => c.title)).toEqual(['First', 'Second', 'Third', 'Last']);
    expect(listed.body.data.choices[3].position).toBe(31);

    const second = listed.body.data.choices[1].id;
    expect((await api.delete(`poll/poll/${poll.id}/choice/${second}`)).status).toBe(200);
    const after = await api.get(`poll/poll/${poll.id}`);
    expect(after.body.data.choices.map((c: { title: string }) => c.title)).toEqual(['First', 'Third', 'Last']);
    expect((await api.delete(`poll/poll/${poll.id}/choice/${second}`)).status).toBe(404);
  });

  it('takes any integer position: negative ones (the SDKs send -1) append at the end', async () => {
    const poll = (await api.post('poll/poll/create', { title: 'positions' })).body.data;
    await api.post(`poll/poll/${poll.id}/choice`, { title: 'A', position: 5 });
    const appended = await api.post(`poll/poll/${poll.id}/choice`, { title: 'B', position: -1 });
    expect(appended.status).toBe(200);
    expect(appended.body.data.map((c: { title: string; position: number }) => [c.title, c.position])).toEqual([
      ['A', 5],
      ['B', 6],
    ]);
    const first = await api.post(`poll/poll/${poll.id}/choice`, { title: 'Z', position: 0 });
    expect(first.body.data.map((c: { title: string }) => c.title)).toEqual(['Z', 'A', 'B']);
    expect((await api.post(`poll/poll/${poll.id}/choice`, { title: 'bad', position: 1.5 })).body.errors).toHaveProperty('position');
  });

  it('refuses a choice without a title, naming the field', async () => {
    const poll = (await api.post('poll/poll/create', { title: 'x' })).body.data;
    const bad = await api.post(`poll/poll/${poll.id}/choice`, { choices: [{ title: 'ok' }, { subtitle: 'no title' }] });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toHaveProperty(['choices.1.title']);
    const empty = await api.post(`poll/poll/${poll.id}/choice`, {});
    expect(empty.status).toBe(400);
    expect(empty.body.errors).toHaveProperty('title');
  });
});

describe('votes', () => {
  it('records a vote and refuses a second one by default', async () => {
    const { pollid, choices } = await pollWithChoices();
    const first = await api.post(`poll/poll/${pollid}/response`, { userid: 'u1', choiceid: choices[0] });
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ kind: 'poll.response', pollid, choiceid: choices[0], userid: 'u1' });
    const again = await api.post(`poll/poll/${pollid}/response`, { userid: 'u1', choiceid: choices[1] });
    expect(again.status).toBe(409);
    const mine = await api.get(`poll/poll/${pollid}/responses/user/u1`);
    expect(mine.body.data.responses.map((r: { choiceid: string }) => r.choiceid)).toEqual([choices[0]]);
  });

  it("responses/all?UserId= gives one user's responses; without it (or empty), all of them, paged", async () => {
    const { pollid, choices } = await pollWithChoices();
    expect((await api.post(`poll/poll/${pollid}/response`, { userid: 'ra', choiceid: choices[0] })).status).toBe(200);
    expect((await api.post(`poll/poll/${pollid}/response`, { userid: 'rb', choiceid: choices[1] })).status).toBe(200);
    const mine = await api.get(`poll/poll/${pollid}/responses/all?UserId=rb`);
    expect(mine.status).toBe(200);
    expect(mine.body.data.responses.map((r: { userid: string; choiceid: string }) => [r.userid, r.choiceid])).toEqual([['rb', choices[1]]]);
    const page = await api.get(`poll/poll/${pollid}/responses/all?UserId=&limit=1`);
    expect(page.body.data.responses).toHaveLength(1);
    expect(page.body.data.more).toBe(true);
    const rest = await api.get(`poll/poll/${pollid}/responses/all?cursor=${encodeURIComponent(page.body.data.cursor)}`);
    expect([...page.body.data.responses, ...rest.body.data.responses].map((r: { userid: string }) => r.userid).sort()).toEqual(['ra', 'rb']);
  });

  it('applies allowmultiplechoicesperuser, maxtotalresponsesperuser and maxresponsesperchoiceperuser', async () => {
    const { pollid, choices } = await pollWithChoices({ allowmultiplechoicesperuser: true, maxtotalresponsesperuser: 3, maxresponsesperchoiceperuser: 2 }, ['A', 'B', 'C']);
    const vote = (choiceid: string) => api.post(`poll/poll/${pollid}/response`, { userid: 'multi', choiceid });
    expect((await vote(choices[0] as string)).status).toBe(200);
    expect((await vote(choices[0] as string)).status).toBe(200);
    const thirdOnA = await vote(choices[0] as string);
    expect(thirdOnA.status).toBe(409);
    expect(thirdOnA.body.message).toMatch(/per choice/);
    expect((await vote(choices[1] as string)).status).toBe(200);
    const fourth = await vote(choices[2] as string);
    expect(fourth.status).toBe(409);
    expect(fourth.body.message).toMatch(/3 response/);
  });

  it('refuses another choice when multiple choices are off', async () => {
    const { pollid, choices } = await pollWithChoices({ maxtotalresponsesperuser: 0, maxresponsesperchoiceperuser: 0 });
    expect((await api.post(`poll/poll/${pollid}/response`, { userid: 'one', choiceid: choices[0] })).status).toBe(200);
    expect((await api.post(`poll/poll/${pollid}/response`, { userid: 'one', choiceid: choices[0] })).status).toBe(200);
    const other = await api.post(`poll/poll/${pollid}/response`, { userid: 'one', choiceid: choices[1] });
    expect(other.status).toBe(409);
    expect(other.body.errors).toHaveProperty('choiceid');
  });

  it('refuses votes outside the poll window or status with 403 naming the reason', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ whenpollopens: new Date(Date.now() + 3_600_000).toISOString() }, /not open yet/],
      [{ whenpollcloses: new Date(Date.now() - 1000).toISOString() }, /closed/],
      [{ whenpollexpires: new Date(Date.now() - 1000).toISOString() }, /expired/],
      [{ status: 'closed' }, /closed/],
      [{ status: 'unpublished' }, /not published/],
    ];
    for (const [fields, reason] of cases) {
      const { pollid, choices } = await pollWithChoices(fields);
      const res = await api.post(`poll/poll/${pollid}/response`, { userid: 'late', choiceid: choices[0] });
      expect(res.status).toBe(403);
      expect(res.body.message).toMatch(reason);
    }
  });

  it('answers 404 for an unknown poll or choice and 400 without userid', async () => {
    const { pollid, choices } = await pollWithChoices();
    expect((await api.post(`poll/poll/nope/response`, { userid: 'x', choiceid: choices[0] })).status).toBe(404);
    expect((await api.post(`poll/poll/${pollid}/response`, { userid: 'x', choiceid: 'nope' })).status).toBe(404);
    const missing = await api.post(`poll/poll/${pollid}/response`, { choiceid: choices[0] });
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toHaveProperty('userid');
  });

  it('keeps standings exact under concurrent votes and limits per user', async () => {
    const { pollid, choices } = await pollWithChoices({}, ['A', 'B', 'C']);
    const voters = Array.from({ length: 150 }, (_, i) => ({ userid: `v${i}`, choiceid: choices[i % 3] }));
    // Each voter sends the same vote three times at once: exactly one may count.
    const results = await Promise.all(voters.flatMap((v) => [v, v, v]).map((v) => api.post(`poll/poll/${pollid}/response`, v)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(150);
    expect(results.filter((r) => r.status === 409)).toHaveLength(300);
    const standings = (await api.get(`poll/poll/${pollid}/standings`)).body.data;
    expect(standings.kind).toBe('poll.standings');
    expect(standings.totalresponses).toBe(150);
    expect(standings.choices.map((c: { count: number }) => c.count)).toEqual([50, 50, 50]);
    expect(standings.choices[0].share).toBeCloseTo(1 / 3, 6);
    expect(standings.choices[0].percentage).toBe(33.33);

    const page = await api.get(`poll/poll/${pollid}/responses?limit=100`);
    expect(page.body.data.kind).toBe('list.poll.responses');
    expect(page.body.data.itemcount).toBe(100);
    const rest = await api.get(`poll/poll/${pollid}/responses?limit=100&cursor=${page.body.data.cursor}`);
    expect(rest.body.data.itemcount).toBe(50);
    expect(rest.body.data.more).toBe(false);
    const ids = new Set([...page.body.data.responses, ...rest.body.data.responses].map((r: { id: string }) => r.id));
    expect(ids.size).toBe(150);
  });

  it('refuses a voter again in the next batch, whose read may run before the last batch committed', async () => {
    const { pollid, choices } = await pollWithChoices({}, ['A', 'B']);
    // Each voter's two votes back to back, in a steady stream: batch boundaries fall between
    // the two of many pairs, and the next batch's read races the last batch's write.
    const sent: Promise<{ status: number }>[] = [];
    for (let i = 0; i < 2000; i++) {
      const vote = { userid: `p${i}`, choiceid: choices[i % 2] };
      sent.push(api.post(`poll/poll/${pollid}/response`, vote), api.post(`poll/poll/${pollid}/response`, vote));
      if (i % 10 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    const results = await Promise.all(sent);
    expect(results.filter((r) => r.status === 200)).toHaveLength(2000);
    expect(results.filter((r) => r.status === 409)).toHaveLength(2000);
    const standings = (await api.get(`poll/poll/${pollid}/standings`)).body.data;
    expect(standings.totalresponses).toBe(2000);
    expect(standings.choices.map((c: { count: number }) => c.count)).toEqual([1000, 1000]);
  }, 30_000);

  it("gives standings in position order, with no choices for a poll that has none, and none of another app's poll", async () => {
    const empty = (await api.post('poll/poll/create', { title: 'No choices yet' })).body.data.id as string;
    expect((await api.get(`poll/poll/${empty}/standings`)).body.data).toEqual({ kind: 'poll.standings', pollid: empty, totalresponses: 0, choices: [] });

    const { pollid, choices } = await pollWithChoices({}, ['First', 'Second', 'Third']);
    await api.post(`poll/poll/${pollid}/response`, { userid: 'a', choiceid: choices[2] });
    await api.post(`poll/poll/${pollid}/response`, { userid: 'b', choiceid: choices[2] });
    await api.post(`poll/poll/${pollid}/response`, { userid: 'c', choiceid: choices[0] });
    await api.post(`poll/poll/${pollid}/response`, { userid: 'd', choiceid: choices[0] });
    await api.post(`poll/poll/${pollid}/response`, { userid: 'e', choiceid: choices[1] });
    const standings = (await api.get(`poll/poll/${pollid}/standings`)).body.data;
    expect(standings).toMatchObject({ kind: 'poll.standings', pollid, totalresponses: 5 });
    expect(standings.choices.map((c: { choiceid: string; title: string; position: number; count: number; percentage: number }) => [c.choiceid, c.title, c.position, c.count, c.percentage])).toEqual([
      [choices[0], 'First', 0, 2, 40],
      [choices[1], 'Second', 1, 1, 20],
      [choices[2], 'Third', 2, 2, 40],
    ]);

    const { api: other } = await newApp();
    const res = await other.get(`poll/poll/${pollid}/standings`);
    expect(res.status).toBe(404);
  });

  it('takes a deleted choice off the standings and resets a poll', async () => {
    const { pollid, choices } = await pollWithChoices({}, ['A', 'B']);
    await api.post(`poll/poll/${pollid}/response`, { userid: 'a', choiceid: choices[0] });
    await api.post(`poll/poll/${pollid}/response`, { userid: 'b', choiceid: choices[1] });
    await api.post(`poll/poll/${pollid}/response`, { userid: 'c', choiceid: choices[1] });
    await api.delete(`poll/poll/${pollid}/choice/${choices[1]}`);
    const standings = (await api.get(`poll/poll/${pollid}/standings`)).body.data;
    expect(standings.totalresponses).toBe(1);
    expect((await api.get(`poll/poll/${pollid}`)).body.data.totalresponses).toBe(1);

    const reset = await api.put(`poll/poll/${pollid}/reset`);
    expect(reset.status).toBe(200);
    expect(reset.body.data.deletedresponses).toBe(1);
    expect((await api.get(`poll/poll/${pollid}/standings`)).body.data.totalresponses).toBe(0);
    expect((await api.post(`poll/poll/${pollid}/response`, { userid: 'a', choiceid: choices[0] })).status).toBe(200);
  });
});

describe('leads', () => {
  it('captures leads and lists them', async () => {
    const { pollid } = await pollWithChoices();
    const lead = await api.post(`poll/poll/${pollid}/lead`, { firstName: 'Ada', lastName: 'L', email: 'ada@example.com' });
    expect(lead.status).toBe(200);
    expect(lead.body.data).toMatchObject({ kind: 'poll.lead', firstname: 'Ada', email: 'ada@example.com' });
    const bad = await api.post(`poll/poll/${pollid}/lead`, { firstname: 'x', email: 'not-an-email' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toHaveProperty('email');
    const leads = await api.get(`poll/poll/${pollid}/leads`);
    expect(leads.body.data.kind).toBe('list.poll.leads');
    expect(leads.body.data.leads.map((l: { email: string }) => l.email)).toEqual(['ada@example.com']);
  });
});
