import { constants, crc32, deflateRawSync } from 'node:zlib';

/**
 * A gzip member written piece by piece, for a response that never knows its end in advance (an
 * event stream): each piece is raw DEFLATE of its own, flushed to a byte boundary and not final, so
 * pieces made apart (the same event's text, deflated once for every stream that sends it) chain
 * into one valid member; the CRC is carried from piece to piece, and `end` closes the member.
 */
export class GzipStream {
  private crc = 0;
  private size = 0;
  private begun = false;

  /** What to send for these bytes (the gzip header first, the first time). */
  piece(packed: Packed): Buffer {
    this.crc = (multiplyModP(packed.shift, this.crc) ^ packed.crc) >>> 0;
    this.size = (this.size + packed.length) >>> 0;
    if (this.begun) return packed.deflated;
    this.begun = true;
    return Buffer.concat([HEADER, packed.deflated]);
  }

  /** The last bytes: an empty final block, the CRC and the size. */
  end(): Buffer {
    const trailer = Buffer.alloc(8);
    trailer.writeUInt32LE(this.crc, 0);
    trailer.writeUInt32LE(this.size, 4);
    return Buffer.concat([this.begun ? FINAL_BLOCK : Buffer.concat([HEADER, FINAL_BLOCK]), trailer]);
  }
}

/** Bytes deflated as a piece of a GzipStream, with their CRC, length, and what moves a CRC past them (made once for every stream). */
export interface Packed {
  deflated: Buffer;
  crc: number;
  length: number;
  shift: number;
}

export function pack(bytes: Buffer): Packed {
  return { deflated: deflateRawSync(bytes, { finishFlush: constants.Z_SYNC_FLUSH }), crc: crc32(bytes), length: bytes.length, shift: x2nModP(bytes.length, 3) };
}

/** ID1 ID2, deflate, no flags, no time, no extra flags, unknown OS (RFC 1952). */
const HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
/** A final block of fixed Huffman codes holding only its end. */
const FINAL_BLOCK = Buffer.from([0x03, 0x00]);

const POLY = 0xedb88320;

/** a × b modulo the CRC polynomial (zlib's multmodp). */
function multiplyModP(a: number, b: number): number {
  let m = 0x80000000;
  let p = 0;
  for (;;) {
    if ((a & m) !== 0) {
      p ^= b;
      if ((a & (m - 1)) === 0) break;
    }
    m >>>= 1;
    b = (b & 1) !== 0 ? (b >>> 1) ^ POLY : b >>> 1;
  }
  return p >>> 0;
}

/** x^(2^k) modulo the polynomial, k = 0..31. */
const X2N: number[] = (() => {
  const table = [0x40000000];
  for (let k = 1; k < 32; k++) table.push(multiplyModP(table[k - 1] as number, table[k - 1] as number));
  return table;
})();

/** x^(n × 2^k) modulo the polynomial. */
function x2nModP(n: number, k: number): number {
  let p = 0x80000000;
  for (; n > 0; n = Math.floor(n / 2), k++) if (n % 2 === 1) p = multiplyModP(X2N[k & 31] as number, p);
  return p;
}
