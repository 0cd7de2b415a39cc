import type { Application } from '../apps/types.js';
import type { Backpressure } from './backpressure.js';
import type { Logger } from '../logger.js';
import { wsMetrics } from '../metrics/registry.js';
import { sendError, sendFrame, sendFrames, type Connection, type Socket } from './connection.js';
import { topicRefFrame } from './compact/frames.js';
import { replayFrame } from './compact/replay-batches.js';
import type { TopicEncoder } from './compact/topic-encoder.js';
import { eventFrame, KNOWN, localTopic, WHOLE, type Delivery, type LiveHub } from './hub.js';
import type { LiveMessage, TopicEnd } from './live.js';
import { Refusal, refusalOf } from './refusal.js';
import { replayFrames, resumeTopic } from './resume.js';
import type { Replay, Topic, TopicRegistry } from './topics.js';

export interface SubscriptionDeps {
  hub: LiveHub;
  topics: TopicRegistry;
  log: Logger;
  maxSubscriptions: number;
  backpressure: Backpressure;
}

/** Numbers each subscription of this process: a compact socket's promotion must be of the subscription that asked for it. */
let serials = 0;

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
      const serial = ++serials;
      conn.topics.set(name, serial);
      wsMetrics.subscriptions.inc();
      const listening = this.deps.hub.follow(app, topic, conn.compact);
      try {
        await def.exists?.(app, topic.id);
        await listening;
        if (!this.holds(conn, name, serial)) return;
        const encoder = conn.compact ? (this.deps.hub.encoder(app.id, name) as TopicEncoder) : undefined;
        if (encoder !== undefined) this.send(ws, topicRefFrame(name, encoder.ref));
        if (resumeFrom === undefined || replay === undefined) {
          this.takeLive(ws, name, serial, encoder);
          const frame = await this.subscribed(app, topic, replay);
          if (!this.holds(conn, name, serial)) return;
          this.send(ws, frame);
        } else {
          await this.resume(ws, topic, replay, resumeFrom, serial, encoder);
        }
        if (def.snapshot !== undefined && !conn.closed) {
          const snapshot = await def.snapshot(app, topic.id);
          if (this.holds(conn, name, serial)) this.send(ws, encoder === undefined ? eventFrame(name, snapshot) : encoder.direct(snapshot));
        }
      } catch (err) {
        this.drop(ws, name);
        throw err;
      }
    } catch (err) {
      this.refuse(ws, err, name);
    }
  }

  private holds(conn: Connection, name: string, serial: number): boolean {
    return !conn.closed && conn.topics.get(name) === serial;
  }

  /**
   * The socket takes the topic's live items from the shared uWS topic: a plain socket its frames; a
   * compact one either the frames by reference at once (with the table's snapshot first, when it is
   * small), or the frames with every object whole until it has received every frame a reference
   * could point back to (TopicEncoder.join).
   */
  private takeLive(ws: Socket, name: string, serial: number, encoder: TopicEncoder | undefined): void {
    const conn = ws.getUserData();
    const key = localTopic((conn.app as Application).id, name);
    if (encoder === undefined) {
      ws.subscribe(key);
      return;
    }
    const joined = encoder.join((snapshot) => {
      if (!this.holds(conn, name, serial) || !ws.isSubscribed(key + WHOLE)) return;
      if (snapshot !== undefined) this.send(ws, snapshot);
      ws.unsubscribe(key + WHOLE);
      ws.subscribe(key + KNOWN);
    });
    if (joined === undefined) {
      ws.subscribe(key + WHOLE);
      return;
    }
    if (joined.snapshot !== undefined) this.send(ws, joined.snapshot);
    ws.subscribe(key + KNOWN);
  }

  /**
   * The `subscribed` frame; a topic with a feed adds where it stands (read after joining the live
   * topic, so every later item is delivered): a client that resumes from there misses nothing,
   * even when its first cut comes before the topic's first event.
   */
  private async subscribed(app: Application, topic: Topic, replay: Replay | undefined): Promise<string> {
    if (replay === undefined) return JSON.stringify({ type: 'subscribed', topic: topic.name });
    const head = await replay(app, topic.id, '', 1, performance.now());
    return JSON.stringify({ type: 'subscribed', topic: topic.name, cursor: head.cursor, seq: head.seq });
  }

  unsubscribe(ws: Socket, name: string): void {
    const conn = ws.getUserData();
    if (!conn.topics.has(name)) return sendError(ws, this.deps.backpressure, 'not_subscribed', `Not subscribed to ${name}.`, name);
    this.drop(ws, name);
    this.send(ws, JSON.stringify({ type: 'unsubscribed', topic: name }));
  }

  /** The topic ended (its object is gone): the socket's subscription of it ends with `unsubscribed` and the reason. */
  ended(ws: Socket, appId: string, end: TopicEnd): void {
    const conn = ws.getUserData();
    if (conn.app?.id !== appId || !conn.topics.has(end.topic)) return;
    this.drop(ws, end.topic);
    this.send(ws, JSON.stringify({ type: 'unsubscribed', topic: end.topic, reason: end.reason }));
  }

  /** Forgets a closing socket's topics and stops its replays (uWS drops its topics by itself). */
  closed(ws: Socket): void {
    const conn = ws.getUserData();
    // Cleared so that a subscribe still in flight does not count its topic down a second time.
    wsMetrics.subscriptions.dec(conn.topics.size);
    for (const name of conn.topics.keys()) this.deps.hub.unfollow(conn.app?.id ?? conn.appId, name, conn.compact);
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

  /** Replays the feed after the cursor, then joins the shared uWS topic once the grace period is over (resumeTopic). */
  private resume(ws: Socket, topic: Topic, replay: Replay, cursor: string, serial: number, encoder: TopicEncoder | undefined): Promise<void> {
    const conn = ws.getUserData();
    const app = conn.app as Application;
    const frameOf = (d: Delivery) => (encoder === undefined ? d.frame : (d.compact as string));
    const replayed =
      encoder === undefined
        ? (items: readonly LiveMessage[], prev: number | undefined) => replayFrames(topic.name, items, prev)
        : (items: readonly LiveMessage[], prev: number | undefined) => [replayFrame(encoder.writing, encoder.ref, items, prev, conn.deflate)];
    return resumeTopic(this.deps.hub, app, topic, replay, cursor, {
      active: () => !conn.closed && conn.resuming.has(topic.name),
      // Confirmed once the cursor proved valid and near enough, so a refused one gets only an error.
      confirmed: () => this.send(ws, JSON.stringify({ type: 'subscribed', topic: topic.name, resumed: true })),
      deliver: (d) => this.send(ws, frameOf(d)),
      deliverAll: (deliveries) => sendFrames(ws, deliveries.map(frameOf), this.deps.backpressure),
      unsent: () => (conn.closed ? 0 : ws.getBufferedAmount()),
      replayed: (items, prev) => sendFrames(ws, replayed(items, prev), this.deps.backpressure),
      caughtUp: () => this.takeLive(ws, topic.name, serial, encoder),
      stopWith: (stop) => (stop === undefined ? conn.resuming.delete(topic.name) : conn.resuming.set(topic.name, stop)),
    });
  }

  private drop(ws: Socket, name: string): void {
    const conn = ws.getUserData();
    if (conn.topics.delete(name)) {
      wsMetrics.subscriptions.dec();
      this.deps.hub.unfollow(conn.app?.id ?? conn.appId, name, conn.compact);
    }
    conn.resuming.get(name)?.();
    if (conn.closed || conn.app === undefined) return;
    const key = localTopic(conn.app.id, name);
    ws.unsubscribe(key);
    if (conn.compact) {
      ws.unsubscribe(key + WHOLE);
      ws.unsubscribe(key + KNOWN);
    }
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
