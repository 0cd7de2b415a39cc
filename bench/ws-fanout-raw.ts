import { connect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

const KEY = 'dGhlIHNhbXBsZSBub25jZQ==';
const OP_TEXT = 0x1;
const OP_BINARY = 0x2;
const OP_CLOSE = 0x8;
const OP_PING = 0x9;
const OP_PONG = 0xa;

/**
 * A minimal WebSocket client for the load generator: it parses frame headers straight off the TCP
 * stream and hands each text payload to one callback, which costs far less CPU per frame than a
 * full client. Client frames are masked with a zero key (payload unchanged), as RFC 6455 allows.
 */
export class RawSocket {
  private pending: Buffer | undefined;
  private upgraded = false;

  /** Binary frames' payloads go here when set (a compact socket's deflated batches). */
  onBinary: ((payload: Buffer) => void) | undefined;

  private constructor(
    private readonly socket: Socket,
    private readonly onText: (payload: Buffer) => void,
  ) {}

  /** Bytes received on the TCP connection so far (the upgrade answer and WebSocket framing included). */
  get bytesRead(): number {
    return this.socket.bytesRead;
  }

  /** `onClose` is told when the connection ends, whoever ended it; `extensions` is offered as Sec-WebSocket-Extensions. */
  static open(url: string, onText: (payload: Buffer) => void, onClose?: () => void, extensions?: string): Promise<RawSocket> {
    const { protocol, host, hostname, port, pathname, search } = new URL(url);
    const secure = protocol === 'wss:';
    return new Promise((resolve, reject) => {
      const socket = secure ? tlsConnect({ host: hostname, port: Number(port || 443), servername: hostname }) : connect(Number(port || 80), hostname);
      const raw = new RawSocket(socket, onText);
      socket.setNoDelay(true);
      socket.once('error', reject);
      if (onClose !== undefined) socket.once('close', onClose);
      socket.once(secure ? 'secureConnect' : 'connect', () => {
        socket.write(
          `GET ${pathname}${search} HTTP/1.1\r\nHost: ${host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${KEY}\r\nSec-WebSocket-Version: 13\r\n${extensions === undefined ? '' : `Sec-WebSocket-Extensions: ${extensions}\r\n`}\r\n`,
        );
      });
      socket.on('data', (chunk: Buffer) => {
        if (raw.upgraded) return raw.read(chunk);
        const data = raw.pending === undefined ? chunk : Buffer.concat([raw.pending, chunk]);
        const end = data.indexOf('\r\n\r\n');
        if (end < 0) {
          raw.pending = data;
          return;
        }
        if (!data.subarray(0, 12).toString().startsWith('HTTP/1.1 101')) return reject(new Error(`upgrade refused: ${data.subarray(0, end).toString()}`));
        raw.upgraded = true;
        raw.pending = undefined;
        resolve(raw);
        if (data.length > end + 4) raw.read(data.subarray(end + 4));
      });
    });
  }

  send(text: string): void {
    this.write(OP_TEXT, Buffer.from(text));
  }

  /**
   * Resets the connection instead of closing it: a closed one lingers 60 s in TIME_WAIT, in the
   * kernel's connection table that every delivery of the next target is looked up in.
   */
  close(): void {
    this.socket.resetAndDestroy();
  }

  private write(opcode: number, payload: Buffer): void {
    const length = payload.length;
    const header = length < 126 ? Buffer.from([0x80 | opcode, 0x80 | length, 0, 0, 0, 0]) : Buffer.from([0x80 | opcode, 0x80 | 126, length >> 8, length & 0xff, 0, 0, 0, 0]);
    this.socket.write(Buffer.concat([header, payload]));
  }

  private read(chunk: Buffer): void {
    const data = this.pending === undefined ? chunk : Buffer.concat([this.pending, chunk]);
    this.pending = undefined;
    let offset = 0;
    while (data.length - offset >= 2) {
      const opcode = (data[offset] as number) & 0x0f;
      let length = (data[offset + 1] as number) & 0x7f;
      let start = offset + 2;
      if (length === 126) {
        if (data.length - offset < 4) break;
        length = data.readUInt16BE(offset + 2);
        start = offset + 4;
      } else if (length === 127) {
        if (data.length - offset < 10) break;
        length = Number(data.readBigUInt64BE(offset + 2));
        start = offset + 10;
      }
      if (data.length < start + length) break;
      const payload = data.subarray(start, start + length);
      offset = start + length;
      if (opcode === OP_TEXT) this.onText(payload);
      else if (opcode === OP_BINARY) this.onBinary?.(payload);
      else if (opcode === OP_PING) this.write(OP_PONG, Buffer.from(payload));
      else if (opcode === OP_CLOSE) this.socket.end();
    }
    if (offset < data.length) this.pending = Buffer.from(data.subarray(offset));
  }
}
