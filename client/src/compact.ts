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
  shapes: Record<string, Shape>;
  topics: Record<string, TopicShape>;
}

/** The ids a frame's objects leave out (`topic`, `app` fields). */
export interface Where {
  topicId: string;
  appId: string;
}

/** Objects a stream was given by number (per topic, or per batch). */
export type Table = Map<number, Json>;

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

  /** A value where objects of `expected` kind stand: a number is an object the table holds. */
  value(v: unknown, expected: string | null, where: Where, table: Table): unknown {
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
    if (typeof encoded['#'] === 'number') {
      table.set(encoded['#'], object);
      return copy(object);
    }
    return object;
  }

  /** Objects a `refs` frame gives the topic's table. */
  take(objects: readonly unknown[], where: Where, table: Table): void {
    for (const object of objects) this.value(object, null, where, table);
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
      case 'sub': {
        const inner = get(of) as Json | null;
        return inner === null || inner === undefined ? null : (inner[field[4] as string] ?? null);
      }
      default:
        return undefined;
    }
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
