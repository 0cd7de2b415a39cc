import { createHash } from 'node:crypto';

/**
 * How one field of a REST object is written in compact frames (docs/realtime.md, Compact frames):
 * its name, its short key, and what lets it be left out. The client rebuilds the field from the
 * same rule, so these are sent to it as they are (the dictionary).
 *
 * - `[name, key]`: always written.
 * - `eq`, value: left out when equal to the value.
 * - `same` | `lower` | `uuidtime` | `iso` | `epoch` | `hashtags` | `mentions`, field: left out when it
 *   is that field's value, lower-cased, the time of that field's UUIDv7 (ms), the ISO 8601 text of
 *   that field's ms, the ms of that field's ISO 8601 text, or the `#tag` / `@handle` words of that
 *   field's text (src/text/tags.ts; docs/realtime.md gives the patterns).
 * - `sub`, field, inner: left out when it is `inner` of the object in `field` (null when none).
 * - `topic` | `app`: left out when it is the id of the topic the frame is on, or of its application.
 * - `uuid`: a UUID, written as its 16 bytes in base64url (22 characters).
 * - `time`: an ISO 8601 time with milliseconds, written as its ms since the epoch.
 * - `url`: left out when empty; else `[prefix, rest]`, cut after the last `/`: the prefix (a CDN's
 *   avatar folder, shared by many users) is given once per stream as `{"#":n,"s":prefix}`, then as n.
 * - `obj`, kind: an object of that kind (any kind when null), written compact too; left out when null.
 *
 * A field whose value its rule cannot write (or one the shape does not name) goes as it is in the
 * object's `+` member.
 */
export type Field =
  | readonly [name: string, key: string]
  | readonly [name: string, key: string, rule: 'topic' | 'app' | 'uuid' | 'time' | 'url']
  | readonly [name: string, key: string, rule: 'eq', value: unknown]
  | readonly [name: string, key: string, rule: 'same' | 'lower' | 'uuidtime' | 'iso' | 'epoch' | 'hashtags' | 'mentions', of: string]
  | readonly [name: string, key: string, rule: 'sub', of: string, inner: string]
  | readonly [name: string, key: string, rule: 'obj', kind: string | null];

export interface Shape {
  /** In the order REST writes them; `kind` is implied. */
  fields: readonly Field[];
  /**
   * The field that names one object of the kind (a user's `userid`): such objects are sent whole
   * once per stream and then by reference while unchanged, or as their changed fields.
   */
  identity?: string;
}

/** What the topics of a kind carry, for compact frames: the kind of their items, and how a feed cursor is made from a seq. */
export interface TopicShape {
  /** The kind of the items' data (their `kind` field is left out). */
  kind: string;
  /** The event name an item has unless its frame says otherwise (the first the topic kind lists). */
  event: string;
  /** Feed topics: the cursor after an item is base64url(JSON {[cursorKey]: seq}) unless the frame says otherwise. */
  cursorKey?: string;
}

/** The topic kinds, as the registry holds them. */
interface TopicKinds {
  entries(): Iterable<[kind: string, def: { carries?: { kind: string; cursorKey?: string }; doc: { events: string[] } }]>;
}

export interface Dictionary {
  /** Names this dictionary: a client that holds it sends it back and is not sent it again. */
  id: string;
  /** Its JSON, as the `ready` frame carries it. */
  json: string;
}

/** Every object kind's compact shape, each registered by the area that owns the kind. */
export class Shapes {
  private readonly shapes = new Map<string, Shape>();
  private topicShapes: Map<string, TopicShape> | undefined;
  private made: Dictionary | undefined;

  /** `window`: frames an object stays referable after it was last carried (the client keeps it that long). */
  constructor(
    private readonly topicKinds: TopicKinds,
    private readonly window: number,
  ) {}

  register(kind: string, shape: Shape): void {
    if (this.shapes.has(kind)) throw new Error(`shape ${kind} is registered twice`);
    const keys = new Set(shape.fields.map((f) => f[1]));
    if (keys.size !== shape.fields.length || keys.has('#') || keys.has('^') || keys.has('+') || keys.has('k')) throw new Error(`shape ${kind} repeats a key or uses a reserved one`);
    this.shapes.set(kind, shape);
    this.made = undefined;
  }

  get(kind: string): Shape | undefined {
    return this.shapes.get(kind);
  }

  topic(topicKind: string): TopicShape | undefined {
    return this.topics().get(topicKind);
  }

  /** Read from the topic registry once every area registered (the first compact socket comes after the start). */
  private topics(): Map<string, TopicShape> {
    if (this.topicShapes !== undefined) return this.topicShapes;
    this.topicShapes = new Map();
    for (const [kind, def] of this.topicKinds.entries()) {
      const event = def.doc.events[0];
      if (def.carries !== undefined && event !== undefined) this.topicShapes.set(kind, { ...def.carries, event });
    }
    return this.topicShapes;
  }

  /** The shapes and topic shapes, as a compact client is sent them once (and again only when they change). */
  dictionary(): Dictionary {
    if (this.made !== undefined) return this.made;
    const body = JSON.stringify({ window: this.window, shapes: Object.fromEntries(this.shapes), topics: Object.fromEntries(this.topics()) });
    const id = createHash('sha256').update(body).digest('base64url').slice(0, 12);
    this.made = { id, json: `{"id":${JSON.stringify(id)},${body.slice(1)}` };
    return this.made;
  }
}
