import { now } from '../ws-fanout-stats.js';
import type { AckedPost, Poller } from './faults.js';
import { type Api, RequestStats } from './http.js';
import type { Plan } from './plan.js';
import { fanId, type Stage } from './stage.js';

/** What the server acknowledged during the run, to read back afterwards. */
export class Acked {
  readonly joins = new Set<string>();
  /** Room events the run created (posts, like reactions) → when their request was sent. */
  readonly roomEvents = new Map<string, number>();
  /** Chat posts, to check the polled pages against. */
  readonly posts = new Map<string, AckedPost>();
  readonly likes = new Set<string>();
  readonly commentVotes = new Set<string>();
  readonly pollVotes = new Set<string>();
  /** Writes tried per kind: a failed one may still have been stored, so counts may reach this. */
  readonly attempts = new Map<string, number>();

  tried(kind: string): number {
    return this.attempts.get(kind) ?? 0;
  }
}

const sleepUntil = (at: number) => new Promise((r) => setTimeout(r, Math.max(0, at - now())));

/**
 * Runs the plan for `durationSeconds` from `start`: each fan's actions in order at their due
 * times, and the speakers' posts at the plan's rate. A request's latency counts from when it was
 * due, so time spent waiting for a free slot counts too.
 */
export class Run {
  readonly stats = new RequestStats();
  readonly acked = new Acked();
  /** Fans that poll `updates`: what their pages held. */
  readonly pollers: Poller[] = [];

  constructor(
    private readonly api: Api,
    private readonly stage: Stage,
    private readonly plan: Plan,
    private readonly fans: number,
    private readonly durationMs: number,
  ) {}

  async execute(start: number): Promise<void> {
    const end = start + this.durationMs;
    const fans = Array.from({ length: this.fans }, (_, i) => this.fan(i, start, end));
    await Promise.all([...fans, this.posts(start, end)]);
  }

  /** Sends one write or read due at `due`; on success `onOk` sees the answer's data. */
  private async act<T>(kind: string, fan: number, due: number, method: string, path: string, body: unknown, onOk?: (data: T) => void): Promise<boolean> {
    await sleepUntil(due);
    if (method !== 'GET') this.acked.attempts.set(kind, this.acked.tried(kind) + 1);
    const answer = await this.api.call<T>(fan, method, path, body);
    const ok = answer.status === 200 && answer.data !== undefined;
    this.stats.record(kind, now() - due, ok ? undefined : { kind, status: answer.status, message: answer.message });
    if (ok) onOk?.(answer.data as T);
    return ok;
  }

  private async fan(i: number, start: number, end: number): Promise<void> {
    const { roomid } = this.stage;
    const userid = fanId(i);
    const span = end - start;
    const live = this.plan.joinShare > 0 && i >= this.plan.speakers;
    let joinedAt = start;
    if (live) {
      const latecomers = this.fans - this.plan.speakers;
      joinedAt = start + ((i - this.plan.speakers) / Math.max(1, latecomers)) * span * this.plan.joinShare;
      const joined = await this.act('join', i, joinedAt, 'POST', `chat/rooms/${roomid}/join`, { userid, displayname: userid }, () => this.acked.joins.add(userid));
      if (!joined) return;
    } else this.acked.joins.add(userid);
    // Each action at its own random moment between the join and the end, in time order.
    const at = () => joinedAt + Math.random() * (end - joinedAt) * 0.95;
    const actions: { due: number; run: (due: number) => Promise<unknown> }[] = [];
    if (this.plan.likes) actions.push({ due: at(), run: (due) => this.like(i, due) });
    if (this.plan.votes) {
      actions.push({ due: at(), run: (due) => this.voteComment(i, due) });
      actions.push({ due: at(), run: (due) => this.votePoll(i, due) });
    }
    const every = this.plan.pollEverySeconds * 1000;
    if (every > 0) {
      let cursor = '';
      const poller: Poller = { seen: new Map(), firstAnswered: Number.POSITIVE_INFINITY, lastSent: 0 };
      this.pollers.push(poller);
      const poll = (due: number) =>
        this.act<{ cursor: string; more: boolean; events: { id: string }[] }>(
          'updates',
          i,
          due,
          'GET',
          `chat/rooms/${roomid}/updates?limit=100${cursor === '' ? '' : `&cursor=${cursor}`}`,
          undefined,
          (page) => {
            if (poller.firstAnswered === Number.POSITIVE_INFINITY) poller.firstAnswered = now();
            // A page that reached the feed's end holds everything answered before it was asked for.
            if (!page.more) poller.lastSent = due;
            for (const event of page.events) poller.seen.set(event.id, (poller.seen.get(event.id) ?? 0) + 1);
            cursor = page.cursor;
          },
        );
      for (let due = joinedAt + Math.random() * every; due < end; due += every) actions.push({ due, run: poll });
    }
    actions.sort((a, b) => a.due - b.due);
    for (const action of actions) await action.run(action.due);
  }

  private like(i: number, due: number) {
    const { roomid, hotEventId } = this.stage;
    return this.act<{ id: string }>('like', i, due, 'POST', `chat/rooms/${roomid}/events/${hotEventId}/react`, { userid: fanId(i), reaction: 'like', reacted: true }, (event) => {
      this.acked.likes.add(fanId(i));
      this.acked.roomEvents.set(event.id, due);
    });
  }

  private voteComment(i: number, due: number) {
    const { conversationid, commentid } = this.stage;
    return this.act('comment vote', i, due, 'POST', `comment/conversations/${conversationid}/comments/${commentid}/vote`, { userid: fanId(i), vote: 'up' }, () =>
      this.acked.commentVotes.add(fanId(i)),
    );
  }

  private votePoll(i: number, due: number) {
    const { pollid, choiceids } = this.stage;
    return this.act('poll vote', i, due, 'POST', `poll/poll/${pollid}/response`, { userid: fanId(i), choiceid: choiceids[i % choiceids.length] }, () => this.acked.pollVotes.add(fanId(i)));
  }

  /** The speakers' chat posts, evenly paced, each speaker in turn. */
  private async posts(start: number, end: number): Promise<void> {
    if (this.plan.postRate === 0) return;
    const sent: Promise<unknown>[] = [];
    for (let k = 0; start + (k * 1000) / this.plan.postRate < end; k++) {
      const due = start + (k * 1000) / this.plan.postRate;
      const speaker = k % this.plan.speakers;
      await sleepUntil(due);
      sent.push(
        this.act<{ speech: { id: string } }>('post', speaker, due, 'POST', `chat/rooms/${this.stage.roomid}/command`, { userid: fanId(speaker), command: `load test message ${k}` }, (r) => {
          this.acked.roomEvents.set(r.speech.id, due);
          this.acked.posts.set(r.speech.id, { sent: due, answered: now() });
        }),
      );
    }
    await Promise.all(sent);
  }
}
