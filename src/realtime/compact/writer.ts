import { jsonOnce } from '../../json-once.js';
import { extractHashtags, extractMentions } from '../../text/tags.js';
import type { Field, Shape, Shapes } from './shapes.js';

/**
 * How an object with an identity is written at one place of a frame: whole (numbered `n`, the number
 * written unless it is `implicit`), by its number, or as its changes since `base`.
 */
export type Placement = { as: 'whole'; n?: number; implicit?: boolean } | { as: 'ref'; n: number } | { as: 'delta'; n: number; base: Record<string, unknown> };

/**
 * Decides, object by object, what the reader of a frame already holds (RefTable, batchRefs).
 * `implicit`: the number the reader gives the object without being told (a feed item's -seq).
 */
export interface RefScope {
  place(kind: string, id: string, value: Record<string, unknown>, implicit?: number): Placement;
}

/** Every object whole, unnumbered: for a reader that keeps nothing. */
export const NO_REFS: RefScope = { place: () => ({ as: 'whole' }) };

type Json = Record<string, unknown>;

/** The topic a frame is on: the ids its objects' `topic` and `app` fields are left out for. */
export interface Where {
  topicId: string;
  appId: string;
}

/** Equal as JSON (views are immutable, so their text is made once: jsonOnce). */
export function equalJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return false;
  if (Array.isArray(a) && Array.isArray(b) && a.length === 0 && b.length === 0) return true;
  return jsonOnce(a) === jsonOnce(b);
}

/** URL prefixes are kept in a stream's table as objects of this kind; one shorter than URL_PREFIX_MIN is not worth a number. */
const URL_PREFIX = 'url';
const URL_PREFIX_MIN = 12;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function packUuid(v: unknown): string | undefined {
  return typeof v === 'string' && UUID.test(v) ? Buffer.from(v.replaceAll('-', ''), 'hex').toString('base64url') : undefined;
}

function packTime(v: unknown): number | undefined {
  if (typeof v !== 'string') return undefined;
  const ms = Date.parse(v);
  return Number.isFinite(ms) && isoOf(ms) === v ? ms : undefined;
}

function isoOf(ms: unknown): string | undefined {
  if (typeof ms !== 'number' || !Number.isFinite(ms) || Math.abs(ms) > 8.64e15) return undefined;
  return new Date(ms).toISOString();
}

/** What a derived field's rule makes of the object (undefined when it makes nothing). */
function derived(field: Field, value: Json, where: Where): unknown {
  const of = field[3] as string;
  switch (field[2]) {
    case 'topic':
      return where.topicId;
    case 'app':
      return where.appId;
    case 'same':
      return value[of];
    case 'lower': {
      const source = value[of];
      return typeof source === 'string' ? source.toLowerCase() : undefined;
    }
    case 'uuidtime': {
      const id = value[of];
      return typeof id === 'string' && UUID.test(id) ? Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16) : undefined;
    }
    case 'iso':
      return isoOf(value[of]);
    case 'epoch': {
      const text = value[of];
      return typeof text === 'string' ? Date.parse(text) : undefined;
    }
    case 'hashtags':
    case 'mentions': {
      const text = value[of];
      if (typeof text !== 'string') return undefined;
      return field[2] === 'hashtags' ? extractHashtags(text) : extractMentions(text);
    }
    case 'sub': {
      const inner = value[of];
      return typeof inner === 'object' && inner !== null ? ((inner as Json)[field[4] as string] ?? null) : null;
    }
    default:
      return undefined;
  }
}

/** Each shape's field names, to find the fields an object has beyond them. */
const namesOf = new WeakMap<Shape, Set<string>>();
function names(shape: Shape): Set<string> {
  let set = namesOf.get(shape);
  if (set === undefined) {
    set = new Set(['kind', ...shape.fields.map((f) => f[0])]);
    namesOf.set(shape, set);
  }
  return set;
}

/**
 * Writes REST objects compact (docs/realtime.md, Compact frames): by their kind's shape, fields at
 * their default or derivable left out, short keys, objects with an identity whole once and then
 * by reference or by their changes. What it makes is JSON-ready; the client rebuilds the exact object.
 */
export class CompactWriter {
  constructor(private readonly shapes: Shapes) {}

  /**
   * Any value in a place where objects of `expected` kind stand (null: any kind). `implicit`: the
   * number a frame's item takes without writing it (its -seq), when it has an identity.
   */
  value(v: unknown, expected: string | null, where: Where, refs: RefScope, implicit?: number): unknown {
    // A number where an object stands is read as a reference: a plain one goes wrapped.
    if (typeof v === 'number') return { '=': v };
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return v;
    const object = v as Json;
    const kind = object['kind'];
    const shape = typeof kind === 'string' ? this.shapes.get(kind) : undefined;
    // An object of a kind with no shape goes as REST writes it: its `kind` says so; one with no kind, wrapped.
    if (shape === undefined) return typeof kind === 'string' ? object : { '=': object };
    const id = shape.identity === undefined ? undefined : object[shape.identity];
    const placed: Placement = typeof id === 'string' ? refs.place(kind as string, id, object, implicit) : { as: 'whole' };
    if (placed.as === 'ref') return placed.n;
    if (placed.as === 'delta') {
      const delta = this.delta(object, placed.base, shape, placed.n, where, refs);
      if (delta !== undefined) return delta;
    }
    return this.whole(object, kind as string, shape, expected, where, refs, placed.as === 'whole' && placed.implicit === true ? undefined : placed.n);
  }

  /** The object in full, fields at their default or derivable left out; numbered `n` when the reader is to keep it. */
  whole(object: Json, kind: string, shape: Shape, expected: string | null, where: Where, refs: RefScope, n?: number): Json {
    const out: Json = {};
    if (kind !== expected) out['k'] = kind;
    if (n !== undefined) out['#'] = n;
    let extra: Json | undefined;
    let absent: string[] | undefined;
    for (const field of shape.fields) {
      const [name, key, rule] = field;
      if (!(name in object)) {
        (absent ??= []).push(name);
        continue;
      }
      const v = object[name];
      switch (rule) {
        case undefined:
          out[key] = v;
          break;
        case 'eq':
          if (!equalJson(v, field[3])) out[key] = v;
          break;
        case 'uuid':
        case 'time': {
          const packed = rule === 'uuid' ? packUuid(v) : packTime(v);
          if (packed !== undefined) out[key] = packed;
          else (extra ??= {})[name] = v;
          break;
        }
        case 'obj':
          if (v === null) break;
          if (typeof v === 'object' && !Array.isArray(v)) out[key] = this.value(v, field[3] as string | null, where, refs);
          else (extra ??= {})[name] = v;
          break;
        case 'url':
          if (v === '') break;
          if (typeof v === 'string') out[key] = this.url(v, refs);
          else (extra ??= {})[name] = v;
          break;
        default:
          if (!equalJson(derived(field, object, where), v)) out[key] = v;
      }
    }
    const named = names(shape);
    for (const name in object) if (!named.has(name)) (extra ??= {})[name] = object[name];
    if (extra !== undefined) out['+'] = extra;
    if (absent !== undefined) out['-'] = absent;
    return out;
  }

  /** `[prefix, rest]` cut after the last `/`, the prefix given once per stream and then by number (a text too short to pay stays as it is). */
  private url(text: string, refs: RefScope): unknown {
    const cut = text.lastIndexOf('/') + 1;
    if (cut < URL_PREFIX_MIN) return text;
    const prefix = text.slice(0, cut);
    const placed = refs.place(URL_PREFIX, prefix, { s: prefix });
    const rest = text.slice(cut);
    if (placed.as !== 'whole') return [placed.n, rest];
    return placed.n === undefined ? text : [{ '#': placed.n, s: prefix }, rest];
  }

  /** The fields that differ from `base` (the version the reader holds as `n`); undefined when a field went missing (then it goes whole). */
  private delta(object: Json, base: Json, shape: Shape, n: number, where: Where, refs: RefScope): Json | undefined {
    const out: Json = { '^': n };
    let extra: Json | undefined;
    for (const field of shape.fields) {
      const [name, key, rule] = field;
      if (!(name in object)) {
        if (name in base) return undefined;
        continue;
      }
      const v = object[name];
      if (equalJson(v, base[name])) continue;
      if (rule === 'url' && typeof v === 'string') {
        out[key] = this.url(v, refs);
      } else if (rule === 'uuid' || rule === 'time') {
        const packed = rule === 'uuid' ? packUuid(v) : packTime(v);
        if (packed !== undefined) out[key] = packed;
        else (extra ??= {})[name] = v;
      } else if (rule === 'obj' && typeof v === 'object' && v !== null && !Array.isArray(v)) {
        out[key] = this.value(v, field[3] as string | null, where, refs);
      } else if (rule === 'obj' && v !== null) {
        (extra ??= {})[name] = v;
      } else {
        out[key] = v;
      }
    }
    const named = names(shape);
    for (const name in object) if (!named.has(name) && !equalJson(object[name], base[name])) (extra ??= {})[name] = object[name];
    for (const name in base) if (!named.has(name) && !(name in object)) return undefined;
    if (extra !== undefined) out['+'] = extra;
    return out;
  }
}
