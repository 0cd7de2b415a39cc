// The AsyncAPI document is arbitrary JSON read loosely; `any` is the honest type for it here.
/* eslint-disable @typescript-eslint/no-explicit-any */
import { readFileSync } from 'node:fs';
import { Parser } from '@asyncapi/parser';
import { beforeAll, describe, expect, it } from 'vitest';
import { baseUrl } from '../helpers/api.js';

const REALTIME_MD = readFileSync(new URL('../../docs/realtime.md', import.meta.url), 'utf8');

/** The lines of the markdown section under `## title`, up to the next `## `. */
function section(title: string): string[] {
  const lines = REALTIME_MD.split('\n');
  const start = lines.indexOf(`## ${title}`);
  if (start < 0) throw new Error(`docs/realtime.md has no section ${title}`);
  const end = lines.findIndex((l, i) => i > start && l.startsWith('## '));
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

const tableRows = (lines: string[]) => lines.filter((l) => l.startsWith('| ') && !l.startsWith('|---'));
const sorted = (items: Iterable<string | number>) => [...new Set(items)].map(String).sort();

/** What docs/realtime.md says the protocol is. */
const documented = (() => {
  const frames = [...section('Client → server'), ...section('Server → client'), ...section('Compact frames')];
  const frameTypes = frames.flatMap((l) => [...l.matchAll(/^\| `\{"type":"(\w+)"/g)].map((m) => m[1] as string));
  const topicRows = tableRows(section('Client → server')).filter((l) => /^\| `\w+:\{/.test(l));
  const topics = topicRows.map((l) => (/^\| `(\w+):/.exec(l) as RegExpExecArray)[1] as string);
  // The events column names the events first, then remarks (after `;`, `(` or ` with `).
  const events = topicRows.flatMap((l) => [...((l.split('|')[2] as string).split(/;|\(| with /)[0] as string).matchAll(/`([\w.]+)`/g)].map((m) => m[1] as string));
  const afterServerFrames = section('Server → client');
  const errorStart = afterServerFrames.findIndex((l) => l.startsWith('Error codes:'));
  const errorEnd = afterServerFrames.findIndex((l, i) => i > errorStart && l.trim() === '');
  const errorCodes = [
    ...afterServerFrames
      .slice(errorStart, errorEnd)
      .join(' ')
      .matchAll(/`(\w+)`/g),
  ].map((m) => m[1] as string);
  const closeCodes = tableRows(section('Limits and close codes'))
    .map((l) => /^\| (\d{4}) \|/.exec(l)?.[1])
    .filter((c): c is string => c !== undefined);
  return { frameTypes, topics, events, errorCodes, closeCodes };
})();

describe('GET /asyncapi.json', () => {
  let doc: any;
  beforeAll(async () => {
    const res = await fetch(`${baseUrl()}/asyncapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    doc = await res.json();
  });

  it('is a valid AsyncAPI 3.0 document (the official parser, its default rules)', async () => {
    expect(doc.asyncapi).toBe('3.0.0');
    const { document, diagnostics } = await new Parser().parse(JSON.stringify(doc));
    expect(diagnostics.filter((d) => d.severity === 0).map((d) => `${d.path.join('.')}: ${d.message}`)).toEqual([]);
    expect(document).toBeDefined();
    expect(
      document
        ?.channels()
        .all()
        .map((c) => c.address()),
    ).toEqual(['/api/v3/{appid}/ws', '/api/v3/{appid}/sse']);
    // Every operation's messages resolve to messages of the channel.
    for (const op of document?.operations().all() ?? []) expect(op.messages().all().length, op.id()).toBe(1);
  }, 60_000);

  it('reads docs/realtime.md fully (so the comparisons below compare something)', () => {
    expect(documented.frameTypes.length).toBeGreaterThanOrEqual(10);
    expect(documented.topics).toHaveLength(5);
    expect(documented.events.length).toBeGreaterThanOrEqual(9);
    expect(documented.errorCodes.length).toBeGreaterThanOrEqual(10);
    expect(documented.closeCodes.length).toBeGreaterThanOrEqual(6);
  });

  describe('says what docs/realtime.md says, no more and no less', () => {
    const messages = () => Object.values(doc.channels.socket.messages) as any[];

    it('frame types', () => {
      expect(sorted(messages().flatMap((m) => (m.payload.type === 'object' ? [m.payload.properties.type.const] : [])))).toEqual(sorted(documented.frameTypes));
      // The compact live item is an array: [t, data, seq, prev, event, cursor].
      expect(messages().filter((m) => m.payload.type === 'array')).toHaveLength(1);
    });

    it('topic kinds, and the events each carries', () => {
      const events = messages().filter((m) => m.payload.properties?.type.const === 'event');
      expect(sorted(events.map((m) => /^\^(\w+):/.exec(m.payload.properties.topic.pattern)?.[1] as string))).toEqual(sorted(documented.topics));
      expect(sorted(events.flatMap((m) => m.payload.properties.event.enum))).toEqual(sorted(documented.events));
    });

    it('error codes', () => {
      const error = messages().find((m) => m.payload.properties?.type.const === 'error');
      expect(sorted(error.payload.properties.code.enum)).toEqual(sorted(documented.errorCodes));
    });

    it('close codes', () => {
      expect(sorted(doc.channels.socket['x-close-codes'].map((c: any) => c.code))).toEqual(sorted(documented.closeCodes));
    });
  });

  it('describes each client frame from the schema the server validates it with', () => {
    const subscribe = doc.channels.socket.messages.subscribe.payload;
    expect(subscribe.required).toEqual(['type', 'topic']);
    expect(Object.keys(subscribe.properties).sort()).toEqual(['cursor', 'topic', 'type']);
    const heartbeat = doc.channels.socket.messages.heartbeat.payload;
    expect(heartbeat.required).toEqual(['type', 'contextid', 'key']);
  });
});
