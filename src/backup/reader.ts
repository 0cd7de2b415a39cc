import { createHash, type Hash } from 'node:crypto';
import { COPY_END } from './format.js';
import { RestoreRefused } from './refusal.js';

const NEWLINE = 10;
/** Longer than any line between COPY blocks (the manifest's is the longest). */
const LONGEST_LINE = 16 * 1024 * 1024;
const END_OF_ROWS = Buffer.from(`\n${COPY_END}\n`);
const END_OF_ROWS_FIRST = Buffer.from(`${COPY_END}\n`);

/**
 * Reads a backup's text as it streams in: a line at a time between COPY blocks, and a block's rows
 * in pieces of whole lines (never split into lines: a million rows pass as a few hundred pieces).
 * Every byte read goes into a SHA-256, which the end line must match.
 */
export class BackupReader {
  private readonly source: AsyncIterator<Buffer>;
  private buffer: Buffer = Buffer.alloc(0);
  private at = 0;
  private readonly hash: Hash = createHash('sha256');
  /** The hash of everything before the last line `line` returned. */
  private hashBeforeLine = '';

  constructor(input: AsyncIterable<Buffer>) {
    this.source = input[Symbol.asyncIterator]();
  }

  /** Whether the input begins with `text` (read before anything else: a foreign file is told by its first bytes). */
  async begins(text: string): Promise<boolean> {
    const bytes = Buffer.from(text);
    while (this.buffer.length < bytes.length) if (!(await this.more())) return false;
    return this.startsAt(bytes);
  }

  /** The next line (without its newline), or undefined at the end of the input. */
  async line(): Promise<string | undefined> {
    for (;;) {
      const end = this.buffer.indexOf(NEWLINE, this.at);
      if (end !== -1) {
        const line = this.buffer.subarray(this.at, end + 1);
        this.hashBeforeLine = this.hash.copy().digest('hex');
        this.hash.update(line);
        this.at = end + 1;
        return line.toString('utf8', 0, line.length - 1);
      }
      if (this.buffer.length - this.at > LONGEST_LINE) throw damaged('a line is longer than any a backup writes');
      if (!(await this.more())) {
        if (this.at < this.buffer.length) throw damaged('it ends in the middle of a line');
        return undefined;
      }
    }
  }

  /** The SHA-256 (hex) of everything before the line `line` returned last. */
  digestBeforeLastLine(): string {
    return this.hashBeforeLine;
  }

  /** A COPY block's rows, up to and without its end marker (which it reads). */
  async *rows(): AsyncGenerator<Buffer> {
    for (;;) {
      if (this.startsAt(END_OF_ROWS_FIRST)) {
        this.consume(END_OF_ROWS_FIRST.length);
        return;
      }
      const end = this.buffer.indexOf(END_OF_ROWS, this.at);
      if (end !== -1) {
        yield this.consume(end + 1 - this.at);
        this.consume(END_OF_ROWS_FIRST.length);
        return;
      }
      const lastNewline = this.buffer.lastIndexOf(NEWLINE);
      if (lastNewline >= this.at) yield this.consume(lastNewline + 1 - this.at);
      if (!(await this.more())) throw damaged('it ends in the middle of a table');
    }
  }

  private startsAt(bytes: Buffer): boolean {
    return this.buffer.length - this.at >= bytes.length && this.buffer.compare(bytes, 0, bytes.length, this.at, this.at + bytes.length) === 0;
  }

  private consume(length: number): Buffer {
    const piece = this.buffer.subarray(this.at, this.at + length);
    this.hash.update(piece);
    this.at += length;
    return piece;
  }

  /** Reads the next piece of input onto what is left; false at its end. */
  private async more(): Promise<boolean> {
    let next: IteratorResult<Buffer>;
    try {
      next = await this.source.next();
    } catch (err) {
      throw damaged((err as Error).message);
    }
    if (next.done === true) return false;
    this.buffer = this.at === this.buffer.length ? next.value : Buffer.concat([this.buffer.subarray(this.at), next.value]);
    this.at = 0;
    return true;
  }
}

export function damaged(why: string): RestoreRefused {
  return new RestoreRefused(`The backup file is damaged (${why}): nothing was restored.`);
}
