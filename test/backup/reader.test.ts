import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BackupReader } from '../../src/backup/reader.js';

/** A backup's text as the reader meets it: lines, then a COPY block of `rows` rows, then the end line. */
function text(rows: number): { bytes: Buffer; rows: string[] } {
  const lines = Array.from({ length: rows }, (_, i) => `${i}\tmessage ${i} ${'fan chant '.repeat(14)}\t{"a":"\\\\. not an end"}`);
  const head = `-- engage-server backup 1\n-- manifest: {}\nCOPY public.t (id, body, payload) FROM stdin;\n${lines.join('\n')}\n\\.\nCOMMIT;\n`;
  const sha256 = createHash('sha256').update(head).digest('hex');
  return { bytes: Buffer.from(`${head}-- end: {"rows":${rows},"sha256":"${sha256}"}\n`), rows: lines };
}

async function* pieces(bytes: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

/** What the reader makes of the text cut into pieces of `size` bytes: the COPY line, the rows, the lines after, the digest before the end line. */
async function read(bytes: Buffer, size: number) {
  const reader = new BackupReader(pieces(bytes, size));
  const before: string[] = [];
  for (let line = await reader.line(); line !== undefined && !line.startsWith('COPY'); line = await reader.line()) before.push(line);
  const rows: string[] = [];
  for await (const piece of reader.rows()) {
    expect(piece.at(-1)).toBe(10);
    for (const row of piece.toString().split('\n').slice(0, -1)) rows.push(row);
  }
  const after: string[] = [];
  let digest = '';
  for (let line = await reader.line(); line !== undefined; line = await reader.line()) {
    after.push(line);
    if (line.startsWith('-- end: ')) digest = reader.digestBeforeLastLine();
  }
  return { before, rows, after, digest };
}

describe('the backup reader', () => {
  it('reads the same lines, rows and digest whatever the pieces the text comes in, from one byte to the whole (a move hands over 16 MB at once)', async () => {
    const { bytes, rows } = text(150_000);
    const digest = createHash('sha256')
      .update(bytes.subarray(0, bytes.lastIndexOf('-- end: ')))
      .digest('hex');
    for (const size of [1, 7, 4096, 65_536, bytes.length]) {
      const got = await read(size === 1 ? text(50).bytes : bytes, size);
      const want = size === 1 ? text(50).rows : rows;
      expect(got.before).toEqual(['-- engage-server backup 1', '-- manifest: {}']);
      expect(got.rows).toEqual(want);
      expect(got.after[0]).toBe('COMMIT;');
      if (size !== 1) expect(got.digest).toBe(digest);
    }
  });
});
