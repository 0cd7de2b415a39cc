import type { TemplatedApp } from 'uWebSockets.js';
import type { Application } from '../apps/types.js';
import { jsonOnce } from '../json-once.js';
import type { Logger } from '../logger.js';
import { liveMetrics, wsMetrics } from '../metrics/registry.js';
import type { Backpressure } from './backpressure.js';
import type { Bus, BusOutage } from './bus.js';
import { TopicContinuity } from './continuity.js';
import { TOPIC_ENDED, type LiveMessage, type TopicEnd } from './live.js';
import type { Topic, TopicRegistry } from './topics.js';
import { TopicEncoder, type CompactSettings } from './compact/topic-encoder.js';
import { TopicWriting } from './compact/topic-writing.js';

/** A live item as a subscriber receives it: its seq, the message itself, and its frames (each made once, when first needed). */
export interface Delivery {
  seq: number | undefined;
  message: LiveMessage;
  /** The frame of plain sockets. */
  readonly frame: string;
  /** The frame of compact sockets that take objects whole (undefined when no compact socket holds the topic). */
  readonly compact: string | undefined;
}

export type Interceptor = (delivery: Delivery) => void;

export type EndListener = (appId: string, end: TopicEnd) => void;

const noInterest = () => {};

/** uWS topic of a client topic: namespaced by application, so apps never see each other's. */
export const localTopic = (appId: string, topic: string) => `${appId}/${topic}`;
/** The uWS topics of compact sockets (localTopic's key +): those taking objects whole, and those taking references. */
export const WHOLE = '\u0001w';
export const KNOWN = '\u0001k';

/** `prev`: the seq of the item before this one in the subscriber's stream. */
export function eventFrame(topic: string, message: LiveMessage, prev?: number): string {
  const seq = message.seq === undefined ? '' : `,"seq":${message.seq}`;
  const before = prev === undefined || message.seq === undefined ? '' : `,"prev":${prev}`;
  const cursor = message.cursor === undefined ? '' : `,"cursor":${JSON.stringify(message.cursor)}`;
  return `{"type":"event","topic":${JSON.stringify(topic)},"event":${JSON.stringify(message.type)},"data":${jsonOnce(message.data)}${seq}${before}${cursor}}`;
}

/**
 * This node's delivery of live messages: every bus message on a live topic is serialised once
 * and published to the uWS topic `{appid}/{topic}`, reaching every local socket subscribed to it.
 * Sockets that are replaying history get the same deliveries through an interceptor instead.
 */
export class LiveHub {
  private attached: { app: TemplatedApp; backpressure: Backpressure } | undefined;
  private readonly interceptors = new Map<string, Set<Interceptor>>();
  /** Topics this node's sockets hold: how many sockets, and the bus interest they keep. */
  private readonly followed = new Map<string, { sockets: number; release: () => void }>();
  private readonly stopListening: () => void;
  private readonly stopResyncing: () => void;
  /** Resumable topics' items go through it, so that each reaches the sockets in order with no hole. */
  private readonly continuity: TopicContinuity;
  private readonly endListeners = new Set<EndListener>();
  /** Compact writing of the topics compact sockets hold, by localTopic key; their numbers in frames, reused once let go. */
  private readonly encoders = new Map<string, TopicEncoder>();
  private readonly freeRefs: number[] = [];
  private nextRef = 0;

  constructor(
    private readonly bus: Bus,
    topics: TopicRegistry,
    private readonly log: Logger,
    private readonly compact: CompactSettings,
  ) {
    this.continuity = new TopicContinuity((appId, topic, message, prev) => this.publishLocal(appId, topic, message, prev), log);
    this.stopListening = bus.onMessage((appId, message) => {
      if (!topics.isLive(message.topic)) return;
      const live = message.payload as LiveMessage;
      if (live.type === TOPIC_ENDED) for (const listener of this.endListeners) listener(appId, live.data as TopicEnd);
      else if (!this.continuity.receive(localTopic(appId, message.topic), live)) this.publishLocal(appId, message.topic, live);
    });
    this.stopResyncing = bus.onReconnect((outage) => void this.resync(outage));
  }

  /** Publishes on `app`, counting what it publishes into `backpressure`. */
  attach(app: TemplatedApp, backpressure: Backpressure): void {
    this.attached = { app, backpressure };
  }

  /** Delivers to this node's subscribers only (for figures every node computes itself). */
  publishLocal(appId: string, topic: string, message: LiveMessage, prev?: number): void {
    const key = localTopic(appId, topic);
    const listeners = this.interceptors.get(key);
    const attached = this.attached;
    if (attached === undefined) return;
    const { app, backpressure } = attached;
    const plain = app.numSubscribers(key);
    const encoder = this.encoders.get(key);
    if (listeners === undefined && plain === 0 && encoder === undefined) return;
    let frame: string | undefined;
    let compact: { whole: string; known: string | undefined } | undefined;
    try {
      if (plain > 0) frame = eventFrame(topic, message, prev);
      compact = encoder?.frames(message, prev, app.numSubscribers(key + KNOWN) > 0);
    } catch (err) {
      this.log.error({ err, topic }, 'live message is not serialisable');
      return;
    }
    const publish = (to: string, text: string | undefined) => {
      const subscribers = text === undefined ? 0 : app.numSubscribers(to);
      if (subscribers === 0) return;
      app.publish(to, text as string);
      backpressure.sent(text as string);
      wsMetrics.framesSentPublished.inc(subscribers);
    };
    publish(key, frame);
    publish(key + WHOLE, compact?.whole);
    publish(key + KNOWN, compact?.known);
    encoder?.promote();
    if (listeners === undefined) return;
    const delivery: Delivery = {
      seq: message.seq,
      message,
      get frame() {
        frame ??= eventFrame(topic, message, prev);
        return frame;
      },
      compact: compact?.whole,
    };
    for (const listener of listeners) listener(delivery);
  }

  /** How a topic's items are written compact (docs/realtime.md, Compact frames). */
  writing(appId: string, topic: Topic): TopicWriting {
    const { writer, shapes } = this.compact;
    return new TopicWriting(writer, shapes, { topicId: topic.id, appId }, shapes.topic(topic.kind));
  }

  /** The compact writing of a topic this node's compact sockets hold (follow with `compact`). */
  encoder(appId: string, topic: string): TopicEncoder | undefined {
    return this.encoders.get(localTopic(appId, topic));
  }

  /** A socket holds the topic (`compact`: it takes compact frames): the first makes the node take an interest in it; resolves once its live items reach this node. */
  follow(app: Application, topic: Topic, compact = false): Promise<void> {
    const { name, def } = topic;
    const appId = app.id;
    const key = localTopic(appId, name);
    const entry = this.followed.get(key);
    const carried = def.madeOnEachNode !== true;
    if (entry !== undefined) entry.sockets++;
    else {
      this.followed.set(key, { sockets: 1, release: carried ? this.bus.interest(appId, name) : noInterest });
      this.continuity.follow(key, app, topic);
    }
    if (compact) this.holdEncoder(key, appId, topic).holders++;
    return carried ? this.bus.listening(appId, name) : Promise.resolve();
  }

  /** A socket let go of the topic: the last one releases the node's interest. */
  unfollow(appId: string, topic: string, compact = false): void {
    const key = localTopic(appId, topic);
    const encoder = compact ? this.encoders.get(key) : undefined;
    if (encoder !== undefined && --encoder.holders === 0) {
      this.encoders.delete(key);
      this.freeRefs.push(encoder.ref);
    }
    const entry = this.followed.get(key);
    if (entry === undefined || --entry.sockets > 0) return;
    this.followed.delete(key);
    this.continuity.unfollow(key);
    entry.release();
  }

  private holdEncoder(key: string, appId: string, topic: Topic): TopicEncoder {
    let encoder = this.encoders.get(key);
    if (encoder === undefined) {
      encoder = new TopicEncoder(this.freeRefs.pop() ?? this.nextRef++, this.writing(appId, topic), this.compact);
      this.encoders.set(key, encoder);
    }
    return encoder;
  }

  /** Told when a topic ends (endLive): the sockets and streams that hold it let it go. */
  onEnded(listener: EndListener): void {
    this.endListeners.add(listener);
  }

  subscriberCount(appId: string, topic: string): number {
    const app = this.attached?.app;
    const key = localTopic(appId, topic);
    return app === undefined ? 0 : app.numSubscribers(key) + app.numSubscribers(key + WHOLE) + app.numSubscribers(key + KNOWN);
  }

  /** Receives the topic's deliveries until the returned function is called. */
  intercept(appId: string, topic: string, listener: Interceptor): () => void {
    const key = localTopic(appId, topic);
    let set = this.interceptors.get(key);
    if (set === undefined) {
      set = new Set();
      this.interceptors.set(key, set);
    }
    set.add(listener);
    liveMetrics.listeners.inc();
    return () => {
      if (!set.delete(listener)) return;
      liveMetrics.listeners.dec();
      if (set.size === 0) this.interceptors.delete(key);
    };
  }

  close(): void {
    this.stopListening();
    this.stopResyncing();
  }

  /** The bus is back: every resumable topic is read from where it stopped, and the outage is told once. */
  private async resync(outage: BusOutage): Promise<void> {
    const { topics, filled } = await this.continuity.resync();
    this.log.error(
      { outageMs: outage.downMs, topics, filled },
      `the bus was down for ${outage.downMs} ms: live items published meanwhile did not cross nodes; ${topics} live topics re-read from the feed, ${filled} items filled`,
    );
  }
}
