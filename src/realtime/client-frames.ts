import * as v from 'valibot';
import { orList } from '../text/or-list.js';
import type { Peer } from './peer.js';
import { PROTOCOL_FRAMES, type ProtocolFrame } from './protocol.js';

/** A client frame's schema: an object whose `type` is a literal. */
export type FrameSchema = v.ObjectSchema<v.ObjectEntries, undefined>;

/** Handles one frame of an area; errors it throws are refusals (see refusalOf), answered with an error frame. */
export type FrameHandler<T> = (peer: Peer, frame: T) => void | Promise<void>;

export type Parsed = { ok: true; frame: ProtocolFrame; handler: undefined } | { ok: true; frame: unknown; handler: FrameHandler<unknown> } | { ok: false; message: string };

/**
 * The client frames a socket may send: the protocol's own (auth, subscribe, unsubscribe, ping),
 * which the endpoint handles, and those areas register with a schema and a handler.
 */
export class ClientFrames {
  private readonly schemas: Record<string, FrameSchema> = { ...PROTOCOL_FRAMES };
  private readonly handlers = new Map<string, FrameHandler<unknown>>();
  private schema = this.variant();

  register<S extends FrameSchema>(type: string, schema: S, handler: FrameHandler<v.InferOutput<S>>): void {
    if (type in this.schemas) throw new Error(`client frame ${type} is registered twice`);
    this.schemas[type] = schema;
    this.handlers.set(type, handler as FrameHandler<unknown>);
    this.schema = this.variant();
  }

  /** Every frame's schema, by its type (the AsyncAPI document is built from them). */
  all(): Readonly<Record<string, FrameSchema>> {
    return this.schemas;
  }

  /** Text → a typed frame (with its area's handler), or the reason it is not one. */
  parse(text: string): Parsed {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return { ok: false, message: 'Frames must be JSON objects.' };
    }
    const result = v.safeParse(this.schema, json);
    if (result.success) {
      const frame = result.output as { type: string };
      const handler = this.handlers.get(frame.type);
      return handler === undefined ? { ok: true, frame: frame as ProtocolFrame, handler } : { ok: true, frame, handler };
    }
    const issue = result.issues[0];
    const path = issue === undefined ? undefined : v.getDotPath(issue);
    return { ok: false, message: path === null || path === undefined ? (issue?.message ?? 'Invalid frame.') : `${path} ${issue?.message}` };
  }

  private variant() {
    return v.variant('type', Object.values(this.schemas) as v.VariantOptions<'type'>, `type must be ${orList(Object.keys(this.schemas))}`);
  }
}
