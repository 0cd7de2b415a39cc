import type { Application } from '../apps/types.js';
import { orList } from '../text/or-list.js';
import type { FeedPage, LiveMessage } from './live.js';
import type { Peer } from './peer.js';

/**
 * What an area tells realtime about one kind of topic (`kind:id`). Every hook is optional and is
 * called as a plain function (give arrow functions); errors they throw refuse the subscribe frame
 * (see refusalOf).
 */
export interface TopicKindDef {
  /** Throws when this peer may not subscribe to the topic. */
  authorize?(peer: Peer, id: string): void;
  /** Rejects (a 404 ApiError) when the topic's object does not exist in this app. */
  exists?(app: Application, id: string): Promise<void>;
  /**
   * Items after `cursor` (exclusive), for a subscribe that resumes; an empty cursor means: nothing,
   * just the current position (cursor and seq). Holds every item committed before `began`
   * (performance.now(), when the subscriber started listening); items read for an earlier resume may be shared.
   */
  replay?(app: Application, id: string, cursor: string, limit: number, began: number): Promise<FeedPage>;
  /** An event sent once, right after `subscribed`: the topic's current state. */
  snapshot?(app: Application, id: string): Promise<LiveMessage>;
  /** Its live items are made by each node for its own sockets (LiveHub.publishLocal), never carried by the bus: a node holding it subscribes to nothing in Redis. */
  madeOnEachNode?: true;
  /** For compact frames (docs/realtime.md): the kind of its items' data, and for a feed the key its cursors hold the seq under. */
  carries?: { kind: string; cursorKey?: string };
  /** For the AsyncAPI document: the `event` names the topic carries (the first is the usual one) and who may subscribe. */
  doc: { events: string[]; who: string };
}

export type Replay = NonNullable<TopicKindDef['replay']>;

export interface Topic {
  kind: string;
  id: string;
  /** `kind:id`, as clients spell it. */
  name: string;
  def: TopicKindDef;
}

/** Topic ids are up to this long. */
export const TOPIC_ID_MAX = 250;

/** The topic kinds clients may subscribe to, as the areas registered them. */
export class TopicRegistry {
  private readonly defs = new Map<string, TopicKindDef>();

  register(kind: string, def: TopicKindDef): void {
    if (this.defs.has(kind)) throw new Error(`topic kind ${kind} is registered twice`);
    this.defs.set(kind, def);
  }

  /** `room:abc` → its kind, id and definition; undefined for anything else. */
  parse(name: string): Topic | undefined {
    const colon = name.indexOf(':');
    if (colon < 1) return undefined;
    const kind = name.slice(0, colon);
    const def = this.defs.get(kind);
    const id = name.slice(colon + 1);
    if (def === undefined || id === '' || id.length > TOPIC_ID_MAX) return undefined;
    return { kind, id, name, def };
  }

  /** True for a bus topic that sockets may subscribe to (`kind:id` of a registered kind). */
  isLive(name: string): boolean {
    const colon = name.indexOf(':');
    return colon > 0 && this.defs.has(name.slice(0, colon));
  }

  entries(): Iterable<[kind: string, def: TopicKindDef]> {
    return this.defs.entries();
  }

  /** `room:ID, poll:ID or user:ID`: the registered kinds, for error messages. */
  spelled(): string {
    return orList([...this.defs.keys()].map((kind) => `${kind}:ID`));
  }
}
