import { type messages, protocol, types } from '@electric-sql/pglite';

type Parsers = Parameters<typeof types.parseType>[2];
/** A type's parser, as PGlite calls it: the field's text and its type id. */
type Parse = (text: string, typeId: number) => unknown;

/** A field sent in binary: its bytes, where they start and how many. */
type Decode = (answer: Buffer, at: number, length: number) => unknown;

/** The fields of a RowDescription: each one's name, type id, and parser (undefined: kept as text) or binary decoder. */
export interface Fields {
  names: string[];
  typeIds: number[];
  parsers: (Parse | undefined)[];
  /** The fields asked for in binary (see BINARY), each with its decoder; undefined for text fields. */
  decoders: (Decode | undefined)[];
  /** The Bind message's result format codes: none when every field is text, else one per field (1: binary). */
  resultFormats: number[];
}

/** Microseconds since 2000-01-01 (Postgres' epoch) of the largest and smallest timestamps: 'infinity' and '-infinity'. */
const INFINITY_HIGH = 0x7fffffff;
const MINUS_INFINITY_HIGH = -0x80000000;
const POSTGRES_EPOCH_MS = Date.UTC(2000, 0, 1);

/**
 * A timestamptz in binary: 8 bytes of microseconds since 2000-01-01, read as PGlite's text parser
 * would have read the text (a Date to the millisecond, the text's digits past it dropped; ±Infinity for ±infinity).
 */
function timestampOf(answer: Buffer, at: number): Date | number {
  const high = answer.readInt32BE(at);
  const low = answer.readUInt32BE(at + 4);
  if (high === INFINITY_HIGH && low === 0xffffffff) return Number.POSITIVE_INFINITY;
  if (high === MINUS_INFINITY_HIGH && low === 0) return Number.NEGATIVE_INFINITY;
  return new Date(POSTGRES_EPOCH_MS + Math.floor((high * 2 ** 32 + low) / 1000));
}

/**
 * Types the rows bring in binary: Postgres writes a timestamptz as text digit by digit through its
 * calendar and time zone code, and the text parser reads it back the same way; a bytea as text
 * is hex, twice its size, decoded back byte by byte. (A timestamp without time zone stays text:
 * PGlite reads its text in the process's local time.)
 */
const BINARY: Record<number, Decode> = {
  1184: timestampOf, // timestamptz
  17: (answer, at, length) => Buffer.copyBytesFrom(answer, at, length), // bytea, as a Buffer (node-postgres's type for it too)
};

const BIND = 0x42; // 'B'
const PARAMETER_DESCRIPTION = 0x74; // 't'
const ROW_DESCRIPTION = 0x54; // 'T'
const DATA_ROW = 0x44; // 'D'
const ERROR_RESPONSE = 0x45; // 'E'
const NOTIFICATION_RESPONSE = 0x41; // 'A'

/** A NOTIFY committed by the exchange: its channel and payload. */
export type NotificationListener = (channel: string, payload: string) => void;

/**
 * The Bind message of a named statement, its values in text format (null: SQL null). PGlite's
 * serializer measures and encodes each string character by character in JavaScript; for a batch
 * of notifications when they stored their payloads (80 KB) that was a tenth of a like's CPU.
 * Buffer does both natively.
 */
export function bindMessage(statement: string, values: (string | null)[], resultFormats: number[]): Buffer {
  let size = 1 + 4 + 1 + Buffer.byteLength(statement) + 1 + 2 + 2 + 2 + 2 * resultFormats.length;
  const lengths = values.map((v) => (v === null ? -1 : Buffer.byteLength(v)));
  for (const length of lengths) size += 4 + Math.max(length, 0);
  const message = Buffer.allocUnsafe(size);
  message[0] = BIND;
  message.writeInt32BE(size - 1, 1);
  message[5] = 0; // the unnamed portal
  let at = 6 + message.write(statement, 6);
  message[at++] = 0;
  at = message.writeInt16BE(0, at); // no parameter format codes: all text
  at = message.writeInt16BE(values.length, at);
  values.forEach((value, i) => {
    const length = lengths[i] as number;
    at = message.writeInt32BE(length, at);
    if (value !== null) at += message.write(value, at);
  });
  at = message.writeInt16BE(resultFormats.length, at);
  for (const format of resultFormats) at = message.writeInt16BE(format, at);
  return message;
}

/** A prepared statement as Describe tells it: its parameters' type ids and the fields of its rows (none for a statement that returns no rows). */
export interface DescribedStatement {
  parameterTypes: number[];
  fields: Fields;
}

/** The answer to Parse, Describe (statement) and Sync: what the statement takes and returns; an error answer throws. */
export function describedStatement(answer: Buffer, parsers: Parsers): DescribedStatement {
  const described: DescribedStatement = { parameterTypes: [], fields: noFields() };
  forEachMessage(answer, (code, at) => {
    if (code === PARAMETER_DESCRIPTION) {
      const count = answer.readInt16BE(at);
      for (let i = 0; i < count; i++) described.parameterTypes.push(answer.readInt32BE(at + 2 + 4 * i));
    } else if (code === ROW_DESCRIPTION) described.fields = fieldsOf(answer, at, parsers);
  });
  return described;
}

/**
 * The rows of one extended-protocol exchange, read straight from PGlite's answer bytes, as
 * `fields` (the statement's, described once when it was prepared: no Describe of each execution,
 * whose RowDescription the database built and this decoded again for every call). PGlite's
 * own parser copies every field into an ArrayBuffer of its own and decodes it apart, then builds
 * each row with Object.fromEntries: for a page of 50 events that is 1,300 copies, and it cost more
 * than running the statement. Here each text field is decoded from the answer in place. Values
 * go through PGlite's type parsers, as its `query` does, each field's parser looked up once per
 * statement rather than per value (looking it up in the two tables of parsers, keyed by type id,
 * was a third of decoding a row of 30 fields); an error answer throws the DatabaseError PGlite's
 * parser makes of it, as `execProtocol` does. Notifications the exchange committed go to `heard`
 * before the rows are returned (PGlite's own listeners are only told of those its parser sees).
 */
export function rowsOfAnswer(answer: Buffer, fields: Fields, heard: NotificationListener): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [];
  forEachMessage(answer, (code, at) => {
    if (code === DATA_ROW) rows.push(rowOf(answer, at, fields));
    else if (code === NOTIFICATION_RESPONSE) notificationOf(answer, at + 4, heard); // after the sender's process id
  });
  return rows;
}

/** Fields of no row: what a statement that returns none has, and where a RowDescription's are gathered. */
const noFields = (): Fields => ({ names: [], typeIds: [], parsers: [], decoders: [], resultFormats: [] });

/** Calls `each` with every message's code and where its body starts; throws the first error message. */
function forEachMessage(answer: Buffer, each: (code: number, at: number) => void): void {
  let at = 0;
  while (at + 5 <= answer.length) {
    const code = answer[at] as number;
    const end = at + 1 + answer.readInt32BE(at + 1);
    if (code === ERROR_RESPONSE) throw errorOf(answer.subarray(at, end));
    each(code, at + 5);
    at = end;
  }
}

/**
 * A RowDescription's fields, each with its binary decoder (the types in BINARY), or its parser as
 * PGlite's parseType would choose it. PGlite's `parsers` holds one for every built-in type, so the
 * decoders come first: asked before them, the parsers took every field as text.
 */
function fieldsOf(answer: Buffer, start: number, parsers: Parsers): Fields {
  const count = answer.readInt16BE(start);
  const fields = noFields();
  const defaults = types.parsers as Record<number, Parse | undefined>;
  let at = start + 2;
  for (let i = 0; i < count; i++) {
    const nameEnd = answer.indexOf(0, at);
    fields.names.push(answer.toString('utf8', at, nameEnd));
    // after the name: table oid (4), column number (2), type oid (4), type size (2), modifier (4), format (2)
    const typeId = answer.readInt32BE(nameEnd + 7);
    fields.typeIds.push(typeId);
    const decoder = BINARY[typeId];
    fields.parsers.push(decoder === undefined ? ((parsers as Record<number, Parse | undefined> | undefined)?.[typeId] ?? defaults[typeId]) : undefined);
    fields.decoders.push(decoder);
    at = nameEnd + 19;
  }
  if (fields.decoders.some((d) => d !== undefined)) fields.resultFormats = fields.decoders.map((d) => (d === undefined ? 0 : 1));
  return fields;
}

/**
 * A DataRow's fields. When every text field is ASCII (ids, numbers, times, most names), the row
 * up to its last text field is decoded once and each field is a slice of it (a byte is a
 * character then): a decode per field cost a read by id of a 27-column row about a tenth of its
 * CPU. Binary fields after the last text one (a kept page) are not decoded as text for nothing.
 */
function rowOf(answer: Buffer, start: number, { names, typeIds, parsers, decoders }: Fields): Record<string, unknown> {
  const count = answer.readInt16BE(start);
  const row: Record<string, unknown> = {};
  const end = asciiFieldsEnd(answer, start + 2, count, decoders);
  const text = end === undefined ? undefined : answer.toString('latin1', start, end);
  let at = start + 2;
  for (let i = 0; i < count; i++) {
    const length = answer.readInt32BE(at);
    at += 4;
    if (length < 0) {
      row[names[i] as string] = null;
      continue;
    }
    const decode = decoders[i];
    if (decode !== undefined) {
      row[names[i] as string] = decode(answer, at, length);
    } else {
      const field = text === undefined ? answer.toString('utf8', at, at + length) : text.slice(at - start, at - start + length);
      const parse = parsers[i];
      row[names[i] as string] = parse === undefined ? field : parse(field, typeIds[i] as number);
    }
    at += length;
  }
  return row;
}

/** Where the last text field of the `count` fields from `at` ends, when no text field holds a byte outside ASCII; undefined otherwise. */
function asciiFieldsEnd(answer: Buffer, at: number, count: number, decoders: (Decode | undefined)[]): number | undefined {
  let end = at;
  for (let i = 0; i < count; i++) {
    const length = answer.readInt32BE(at);
    at += 4;
    if (length < 0) continue;
    if (decoders[i] === undefined) {
      for (let b = at; b < at + length; b++) if ((answer[b] as number) > 0x7f) return undefined;
      end = at + length;
    }
    at += length;
  }
  return end;
}

function notificationOf(answer: Buffer, start: number, heard: NotificationListener): void {
  const channelEnd = answer.indexOf(0, start);
  heard(answer.toString('utf8', start, channelEnd), answer.toString('utf8', channelEnd + 1, answer.indexOf(0, channelEnd + 1)));
}

function errorOf(message: Buffer): messages.DatabaseError {
  let error: unknown;
  new protocol.Parser().parse(message, (parsed) => {
    error = parsed;
  });
  return error as messages.DatabaseError;
}
