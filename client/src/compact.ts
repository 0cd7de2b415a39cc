/**
 * Compact frames (docs/realtime.md, Compact frames): the server writes each REST object by its
 * kind's shape (short keys, fields at their default or derivable left out, objects with an identity
 * sent once and then by number or as their changes); this rebuilds the exact REST object.
 */

type Json = Record<string, unknown>;
/** `[name, key, rule?, …]`, as the server's dictionary gives it. */
type Field = readonly [string, string, string?, unknown?, string?];

interface Shape {
  fields: readonly Field[];
  identity?: string;
}

export interface TopicShape {
  kind: string;
  event: string;
  cursorKey?: string;
}

export interface Dictionary {
  id: string;
  /** Frames an object stays referable after the last that carried it. */
  window: number;
  shapes: Record<string, Shape>;
  topics: Record<string, TopicShape>;
}

/** The ids a frame's objects leave out (`topic`, `app` fields). */
export interface Where {
  topicId: string;
  appId: string;
}

/**
 * Objects a stream was given by number (per topic, or per batch), each let go once `keep` frames
 * passed without one carrying it (the server refers to none older than its window).
 */
export class Table {
  private readonly objects = new Map<number, { value: Json; frame: number }>();
  private frames = 0;

  constructor(private readonly keep = Number.POSITIVE_INFINITY) {}

  get(n: number): Json | undefined {
    const held = this.objects.get(n);
    if (held !== undefined) held.frame = this.frames;
    return held?.value;
  }

  set(n: number, value: Json): void {
    this.objects.set(n, { value, frame: this.frames });
  }

  /** A frame of the stream was read. */
  tick(): void {
    if (++this.frames % 64 !== 0) return;
    for (const [n, held] of this.objects) if (held.frame < this.frames - this.keep) this.objects.delete(n);
  }
}

const HASHTAG = /(?:^|[^\p{L}\p{N}_&])#([\p{L}\p{N}_]+)/gu;
const MENTION = /(?:^|[^\p{L}\p{N}_@])@([A-Za-z0-9_]+)/gu;
const words = (text: string, pattern: RegExp, mark: string) => [...new Set(Array.from(text.matchAll(pattern), (m) => `${mark}${m[1]}`))];

function copy<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(copy) as T;
  const out: Json = {};
  for (const key in value) out[key] = copy((value as Json)[key]);
  return out as T;
}

function bytesOf(base64url: string): Uint8Array {
  const base64 = base64url.replace(/-/g, '+').replace(/_/g, '/');
  return Uint8Array.from(atob(base64.padEnd(base64.length + ((4 - (base64.length % 4)) % 4), '=')), (c) => c.charCodeAt(0));
}

function unpackUuid(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const hex = Array.from(bytesOf(v), (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const unpackTime = (v: unknown): unknown => (typeof v === 'number' ? new Date(v).toISOString() : v);

/** A feed topic's cursor after `seq`, made as the server makes it. */
export function canonicalCursor(shape: TopicShape | undefined, seq: number | undefined): string | undefined {
  if (shape?.cursorKey === undefined || seq === undefined) return undefined;
  const text = JSON.stringify({ [shape.cursorKey]: seq });
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export class CompactDecoder {
  constructor(readonly dictionary: Dictionary) {}

  /**
   * A value where objects of `expected` kind stand: a number is an object the table holds.
   * `implicit`: the number a frame's item takes without being told (its -seq).
   */
  value(v: unknown, expected: string | null, where: Where, table: Table, implicit?: number): unknown {
    if (typeof v === 'number') return copy(this.held(table, v));
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return v;
    const encoded = v as Json;
    if ('kind' in encoded) return encoded;
    if ('=' in encoded) return encoded['='];
    if ('^' in encoded) return copy(this.changed(encoded, where, table));
    const kind = (encoded['k'] as string | undefined) ?? expected;
    const shape = kind === null ? undefined : this.dictionary.shapes[kind];
    if (kind === null || shape === undefined) throw new Error(`compact frame: no shape for ${String(kind)}`);
    const object = this.whole(encoded, kind, shape, where, table);
    const n = typeof encoded['#'] === 'number' ? encoded['#'] : shape.identity === undefined ? undefined : implicit;
    if (n === undefined) return object;
    table.set(n, object);
    return copy(object);
  }

  /** Objects a `refs` frame gives the topic's table (URL prefixes as `{"k":"url","#":n,"s":…}`). */
  take(objects: readonly unknown[], where: Where, table: Table): void {
    for (const object of objects) {
      const given = object as Json;
      if (given['k'] === 'url') table.set(given['#'] as number, { s: given['s'] });
      else this.value(object, null, where, table);
    }
  }

  private held(table: Table, n: number): Json {
    const object = table.get(n);
    if (object === undefined) throw new Error(`compact frame: object ${n} was never given`);
    return object;
  }

  private explicit(field: Field, v: unknown, where: Where, table: Table): unknown {
    switch (field[2]) {
      case 'uuid':
        return unpackUuid(v);
      case 'time':
        return unpackTime(v);
      case 'url':
        return this.url(v, table);
      case 'obj':
        return this.value(v, (field[3] as string | null | undefined) ?? null, where, table);
      default:
        return v;
    }
  }

  private whole(encoded: Json, kind: string, shape: Shape, where: Where, table: Table): Json {
    const values = new Map<string, unknown>();
    const absent = new Set((encoded['-'] as string[] | undefined) ?? []);
    for (const field of shape.fields) if (field[1] in encoded) values.set(field[0], this.explicit(field, encoded[field[1]], where, table));
    const extra = (encoded['+'] as Json | undefined) ?? {};
    for (const name in extra) values.set(name, extra[name]);
    const byName = new Map(shape.fields.map((f) => [f[0], f]));
    const resolve = (name: string): unknown => {
      if (values.has(name) || absent.has(name)) return values.get(name);
      const field = byName.get(name);
      if (field === undefined) return undefined;
      const value = this.implied(field, resolve, where);
      values.set(name, value);
      return value;
    };
    const object: Json = { kind };
    for (const field of shape.fields) if (!absent.has(field[0])) object[field[0]] = resolve(field[0]);
    for (const name in extra) if (!(name in object)) object[name] = extra[name];
    return object;
  }

  /** A field left out: its default, or what its rule makes of the object. */
  private implied(field: Field, get: (name: string) => unknown, where: Where): unknown {
    const of = field[3] as string;
    switch (field[2]) {
      case 'eq':
        return copy(field[3]);
      case 'obj':
        return null;
      case 'url':
        return '';
      case 'topic':
        return where.topicId;
      case 'app':
        return where.appId;
      case 'same':
        return get(of);
      case 'lower':
        return String(get(of)).toLowerCase();
      case 'uuidtime': {
        const id = String(get(of));
        return Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
      }
      case 'iso':
        return new Date(get(of) as number).toISOString();
      case 'epoch':
        return Date.parse(get(of) as string);
      case 'hashtags':
        return words(String(get(of)), HASHTAG, '#');
      case 'mentions':
        return words(String(get(of)), MENTION, '@');
      case 'sub': {
        const inner = get(of) as Json | null;
        return inner === null || inner === undefined ? null : (inner[field[4] as string] ?? null);
      }
      default:
        return undefined;
    }
  }

  /** `[prefix, rest]`: the prefix given here as `{"#":n,"s":…}`, or by its number. */
  private url(v: unknown, table: Table): unknown {
    if (!Array.isArray(v)) return v;
    const [prefix, rest] = v as [number | { '#': number; s: string }, string];
    if (typeof prefix === 'number') return `${this.held(table, prefix)['s'] as string}${rest}`;
    table.set(prefix['#'], { s: prefix.s });
    return `${prefix.s}${rest}`;
  }

  /** `{"^":n, …}`: the object numbered n with the fields written here changed; it replaces n. */
  private changed(encoded: Json, where: Where, table: Table): Json {
    const n = encoded['^'] as number;
    const base = this.held(table, n);
    const shape = this.dictionary.shapes[base['kind'] as string];
    const object: Json = { ...base };
    for (const field of shape?.fields ?? []) if (field[1] in encoded) object[field[0]] = this.explicit(field, encoded[field[1]], where, table);
    Object.assign(object, (encoded['+'] as Json | undefined) ?? {});
    table.set(n, object);
    return object;
  }
}
