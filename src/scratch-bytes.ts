/**
 * Bytes assembled for a moment, then sent or read and dropped (an answer read from the embedded
 * database, a response's envelope): one Buffer reused from call to call, where a new Buffer per
 * call (and per chunk of it) and their collection cost a crowd's reads a tenth of their CPU.
 * Space grown past `keepBytes` for one large call is given back when the next one starts.
 */
export class ScratchBytes {
  private buffer: Buffer;
  private length = 0;

  constructor(
    private readonly initialBytes = 64 * 1024,
    private readonly keepBytes = 256 * 1024,
  ) {
    this.buffer = Buffer.allocUnsafe(initialBytes);
  }

  /**
   * Starts again, empty: what `bytes` returned before is overwritten from now on. With
   * `expectedBytes` (the size about to be appended, when known) the space is made once, not grown.
   */
  clear(expectedBytes = 0): void {
    this.length = 0;
    if (this.buffer.length > Math.max(this.keepBytes, expectedBytes)) this.buffer = Buffer.allocUnsafe(Math.max(this.initialBytes, expectedBytes));
    else this.reserve(expectedBytes);
  }

  append(bytes: Uint8Array): void {
    this.reserve(bytes.length);
    this.buffer.set(bytes, this.length);
    this.length += bytes.length;
  }

  /** Appends the text in UTF-8; `bytes` is its length in UTF-8, when the caller has measured it already. */
  write(text: string, bytes = Buffer.byteLength(text)): void {
    this.reserve(bytes);
    this.length += this.buffer.write(text, this.length);
  }

  /** What was appended since `clear`: valid until the next `clear` or append. */
  bytes(): Buffer {
    return this.buffer.subarray(0, this.length);
  }

  private reserve(bytes: number): void {
    const needed = this.length + bytes;
    if (needed <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(needed, this.buffer.length * 2));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }
}
