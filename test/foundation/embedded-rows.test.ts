import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { protocol } from '@electric-sql/pglite';
import { pgliteNamedQuery, type NamedQuery } from '../../src/db/pglite-named.js';
import { describedStatement } from '../../src/db/pglite-wire.js';

/**
 * The embedded database's named statements read rows from the wire themselves (src/db/pglite-wire.ts):
 * timestamps and bytes in binary, the rest as text through PGlite's parsers. What they read must
 * be what PGlite's own `query` reads from the same values.
 */
describe('rows of the embedded database read by named statements', () => {
  let db: PGlite;
  let named: NamedQuery;

  beforeAll(async () => {
    db = new PGlite();
    named = pgliteNamedQuery(db, () => {});
    await db.exec(`create table times (n int primary key, at timestamptz, label text, counts bigint, flags boolean, extra jsonb)`);
    await db.exec(`insert into times values
      (1, '2026-11-29 14:00:00.123456+00', 'plain', 12, true, '[]'),
      (2, '1999-12-31 23:59:59.9995+00', 'just before the epoch of Postgres, below a millisecond', 0, false, '{"a": 1}'),
      (3, '1969-07-20 20:17:40.5+00', 'before 1970', -5, null, null),
      (4, 'infinity', 'é and 中: not ASCII', null, true, '"x"'),
      (5, '-infinity', '', 9007199254740991, false, '[1, 2]'),
      (6, null, null, null, null, null),
      (7, '2000-01-01 00:00:00+00', 'the epoch', 1, true, '{}'),
      (8, '2262-04-11 23:47:16.854775+00', 'far ahead', 2, true, '[]')`);
  });

  afterAll(async () => {
    await db?.close();
  });

  it('reads every value as PGlite reads it, timestamps to the millisecond', async () => {
    const text = 'select n, at, label, counts, flags, extra from times order by n';
    const ours = (await named('rows_as_read', text, [])).rows as Record<string, unknown>[];
    const pglites = (await db.query<Record<string, unknown>>(text)).rows;
    expect(ours).toHaveLength(8);
    expect(ours).toEqual(pglites);
    expect(ours.map((r) => (r['at'] instanceof Date ? r['at'].toISOString() : r['at']))).toEqual([
      '2026-11-29T14:00:00.123Z',
      '1999-12-31T23:59:59.999Z',
      '1969-07-20T20:17:40.500Z',
      Number.POSITIVE_INFINITY,
      Number.NEGATIVE_INFINITY,
      null,
      '2000-01-01T00:00:00.000Z',
      '2262-04-11T23:47:16.854Z',
    ]);
  });

  it('asks for timestamps and bytes in binary, whatever parsers PGlite has for them, and reads bytes as a Buffer', async () => {
    const text = `select n, at, label, convert_to(label, 'UTF8') as bytes from times order by n`;
    const { serialize } = protocol;
    const answer = await db.execProtocolRaw(Buffer.concat([serialize.parse({ name: 'described', text }), serialize.describe({ type: 'S', name: 'described' }), serialize.sync()]));
    expect(describedStatement(Buffer.from(answer), db.parsers).fields.resultFormats).toEqual([0, 1, 0, 1]);
    const ours = (await named('bytes_as_read', text, [])).rows as { n: number; bytes: Buffer | null }[];
    const pglites = (await db.query<{ bytes: Uint8Array | null }>(text)).rows;
    expect(ours.map((r) => r.bytes === null || Buffer.isBuffer(r.bytes))).toEqual(ours.map(() => true));
    expect(ours.map((r) => (r.bytes === null ? null : [...r.bytes]))).toEqual(pglites.map((r) => (r.bytes === null ? null : [...r.bytes])));
    expect(ours[3]?.bytes?.toString()).toBe('é and 中: not ASCII');
  });

  it('reads text after bytes, and bytes after the last text field, ASCII or not, as PGlite does', async () => {
    const text = `select n, convert_to(coalesce(label, ''), 'UTF8') as bytes, label, counts, convert_to(repeat(coalesce(label, '-'), 200), 'UTF8') as page from times order by n`;
    const ours = (await named('text_around_bytes', text, [])).rows as Record<string, unknown>[];
    const pglites = (await db.query<Record<string, unknown>>(text)).rows;
    const plain = (rows: Record<string, unknown>[]) => rows.map((r) => ({ ...r, bytes: Buffer.from(r['bytes'] as Uint8Array).toString(), page: Buffer.from(r['page'] as Uint8Array).toString() }));
    expect(plain(ours)).toEqual(plain(pglites));
    expect(plain(ours)[3]).toMatchObject({ label: 'é and 中: not ASCII', bytes: 'é and 中: not ASCII', counts: null });
  });

  it('reads an answer far larger than one chunk, then a small one, each whole', async () => {
    const large = (await named('large_answer', `select g as n, repeat(md5(g::text), 40) as filler from generate_series(1, 2000) g`, [])).rows as { n: number; filler: string }[];
    expect(large).toHaveLength(2000);
    expect(large[1999]?.filler).toHaveLength(32 * 40);
    expect(large.map((r) => r.n)).toEqual(Array.from({ length: 2000 }, (_, i) => i + 1));
    const small = (await named('small_after_large', 'select n, label from times where n = $1', [1])).rows;
    expect(small).toEqual([{ n: 1, label: 'plain' }]);
  });

  it('binds values and reads a statement again, and one that returns no rows', async () => {
    const text = 'select n, at from times where at > $1 order by n';
    for (let i = 0; i < 2; i++) {
      const rows = (await named('later_than', text, [new Date('2000-01-01T00:00:00Z')])).rows as { n: number; at: Date | number }[];
      expect(rows.map((r) => r.n)).toEqual([1, 4, 8]);
    }
    expect((await named('update_none', 'update times set label = label where n = $1', [100])).rows).toEqual([]);
  });
});
