import type { Application } from '../apps/types.js';
import type { Backpressure } from './backpressure.js';
import type { LiveMessage } from './live.js';
import type { Logger } from '../logger.js';
import { wsMetrics } from '../metrics/registry.js';
import { sendError, sendFrame, type Socket } from './connection.js';
import { eventFrame, localTopic, type Delivery, type LiveHub } from './hub.js';
import { Refusal, refusalOf } from './refusal.js';
import type { Replay, Topic, TopicRegistry } from './topics.js';

/** Replay reads the feed in pages of this size, at most MAX_REPLAY_PAGES of them (MAX_REPLAY events). */
const REPLAY_PAGE = 500;
const MAX_REPLAY_PAGES = 10;
const MAX_REPLAY = REPLAY_PAGE * MAX_REPLAY_PAGES;
/**
 * After a replay the socket keeps filtering by seq for this long before it joins the shared uWS
 * topic: an event committed before the replay query may still be on its way from another node.
 */
const RESUME_GRACE_MS = 2_000;

export interface SubscriptionDeps {
  hub: LiveHub;
  topics: TopicRegistry;
  log: Logger;
  maxSubscriptions: number;
  backpressure: Backpressure;
}

/** Subscribe and unsubscribe frames of one socket: authorisation, limits, resume from a cursor. */
export class Subscriptions {
  constructor(private readonly deps: SubscriptionDeps) {}

  async subscribe(ws: Socket, name: string, cursor: string | undefined): Promise<void> {
    const conn = ws.getUserData();
    const app = conn.app as Application;
    try {
      const topic = this.check(ws, name);
      const { def } = topic;
      const { replay } = def;
      const resumeFrom = cursor === undefined || cursor === '' ? undefined : cursor;
      if (resumeFrom !== undefined && replay === undefined) throw new Refusal('cursor_not_supported', `Topics of kind ${topic.kind} cannot resume from a cursor.`);
      conn.topics.add(name);
      wsMetrics.subscriptions.inc();
      const listening = this.deps.hub.follow(app.id, topic);
      try {
        await def.exists?.(app, topic.id);
        await listening;
        if (conn.closed || !conn.topics.has(name)) return;
        if (resumeFrom === undefined || replay === undefined) {
          ws.subscribe(localTopic(app.id, name));
          this.send(ws, JSON.stringify({ type: 'subscribed', topic: name }));
        } else {
          await this.resume(ws, topic, replay, resumeFrom);
        }
        if (def.snapshot !== undefined && !conn.closed) {
          const snapshot = await def.snapshot(app, topic.id);
          if (!conn.closed && conn.topics.has(name)) this.send(ws, eventFrame(name, snapshot));
        }
      } catch (err) {
        this.drop(ws, name);
        throw err;
      }
    } catch (err) {
      this.refuse(ws, err, name);
    }
  }

  unsubscribe(ws: Socket, name: string): void {
    const conn = ws.getUserData();
    if (!conn.topics.has(name)) return sendError(ws, this.deps.backpressure, 'not_subscribed', `Not subscribed to ${name}.`, name);
    this.drop(ws, name);
    this.send(ws, JSON.stringify({ type: 'unsubscribed', topic: name }));
  }

  /** Forgets a closing socket's topics and stops its replays (uWS drops its topics by itself). */
  closed(ws: Socket): void {
    const conn = ws.getUserData();
    // Cleared so that a subscribe still in flight does not count its topic down a second time.
    wsMetrics.subscriptions.dec(conn.topics.size);
    for (const name of conn.topics) this.deps.hub.unfollow(conn.app?.id ?? conn.appId, name);
    conn.topics.clear();
    for (const stop of conn.resuming.values()) stop();
  }

  private check(ws: Socket, name: string): Topic {
    const conn = ws.getUserData();
    const topic = this.deps.topics.parse(name);
    if (topic === undefined) throw new Refusal('bad_topic', `topic must be ${this.deps.topics.spelled()}.`);
    if (conn.topics.has(name)) throw new Refusal('already_subscribed', `Already subscribed to ${name}.`);
    if (conn.topics.size >= this.deps.maxSubscriptions) throw new Refusal('too_many_subscriptions', `A socket may hold at most ${this.deps.maxSubscriptions} subscriptions.`);
    topic.def.authorize?.(conn, topic.id);
    return topic;
  }

  /**
   * Listens to the live topic first and buffers, replays the feed after the cursor, sends the
   * buffered items the replay did not hold, then forwards live items filtered by seq until the
   * grace period ends and the socket joins the shared uWS topic. No gap, no repeat.
   */
  private async resume(ws: Socket, topic: Topic, replay: Replay, cursor: string): Promise<void> {
    const conn = ws.getUserData();
    const app = conn.app as Application;
    const buffer: Delivery[] = [];
    const sent = new Set<number>();
    let replayedUpTo = -Infinity;
    let live = false;
    const forward = (d: Delivery) => {
      if (d.seq !== undefined && (d.seq <= replayedUpTo || sent.has(d.seq))) return;
      if (d.seq !== undefined) sent.add(d.seq);
      this.send(ws, d.frame);
    };
    let timer: NodeJS.Timeout | undefined;
    const stopIntercepting = this.deps.hub.intercept(app.id, topic.name, (d) => (live ? forward(d) : buffer.push(d)));
    const stop = () => {
      stopIntercepting();
      clearTimeout(timer);
      conn.resuming.delete(topic.name);
    };
    conn.resuming.set(topic.name, stop);
    try {
      const missed = await this.missed(app, topic, replay, cursor);
      if (conn.closed || !conn.resuming.has(topic.name)) return;
      // Confirmed once the cursor proved valid and near enough, so a refused one gets only an error.
      this.send(ws, JSON.stringify({ type: 'subscribed', topic: topic.name, resumed: true }));
      for (const item of missed) {
        if (item.seq !== undefined) replayedUpTo = Math.max(replayedUpTo, item.seq);
        this.send(ws, eventFrame(topic.name, item));
      }
    } catch (err) {
      stop();
      throw err;
    }
    live = true;
    for (const d of buffer.splice(0)) forward(d);
    timer = setTimeout(() => {
      if (conn.closed || !conn.resuming.has(topic.name)) return;
      ws.subscribe(localTopic(app.id, topic.name));
      stop();
    }, RESUME_GRACE_MS);
  }

  /** Every item after the cursor, read before anything is sent; refused when more than MAX_REPLAY. */
  private async missed(app: Application, topic: Topic, replay: Replay, cursor: string): Promise<LiveMessage[]> {
    const missed: LiveMessage[] = [];
    let position = cursor;
    for (;;) {
      // Past MAX_REPLAY one item is enough to know the cursor is too far behind.
      const limit = missed.length < MAX_REPLAY ? Math.min(REPLAY_PAGE, MAX_REPLAY - missed.length) : 1;
      const { items, cursor: next } = await replay(app, topic.id, position, limit);
      if (missed.length >= MAX_REPLAY && items.length > 0) {
        throw new Refusal('bad_request', `The cursor is more than ${MAX_REPLAY} events behind; catch up through the REST updates feed, then subscribe with its cursor.`);
      }
      missed.push(...items);
      position = next;
      if (items.length < limit) return missed;
    }
  }

  private drop(ws: Socket, name: string): void {
    const conn = ws.getUserData();
    if (conn.topics.delete(name)) {
      wsMetrics.subscriptions.dec();
      this.deps.hub.unfollow(conn.app?.id ?? conn.appId, name);
    }
    conn.resuming.get(name)?.();
    if (!conn.closed && conn.app !== undefined) ws.unsubscribe(localTopic(conn.app.id, name));
  }

  private refuse(ws: Socket, err: unknown, topic: string): void {
    const refusal = refusalOf(err);
    if (refusal !== undefined) return sendError(ws, this.deps.backpressure, refusal.code, refusal.message, topic);
    this.deps.log.error({ err, topic }, 'subscribe failed');
    sendError(ws, this.deps.backpressure, 'internal', 'The subscription failed; try again.', topic);
  }

  private send(ws: Socket, frame: string): void {
    sendFrame(ws, frame, this.deps.backpressure);
  }
}
