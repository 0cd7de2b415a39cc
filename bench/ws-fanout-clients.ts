import { RawSocket } from './ws-fanout-raw.js';
import { now, Samples } from './ws-fanout-stats.js';

interface Sender {
  send(text: string): void;
}

/** How a load client speaks to one kind of server. */
export interface Dialect {
  /** Called per text frame until it returns true: the socket is subscribed. */
  ready(ws: Sender, text: string): boolean;
  /** Whether a frame is a delivery of a posted message (cheap: looks at a few bytes). */
  isDelivery(frame: Buffer): boolean;
  /** Answers protocol keep-alives; returns true when the frame was one. */
  keepAlive(ws: Sender, frame: Buffer): boolean;
}

export const engageDialect = (topic: string): Dialect => ({
  ready(ws, text) {
    if (text.startsWith('{"type":"ready"')) ws.send(JSON.stringify({ type: 'subscribe', topic }));
    return text.startsWith('{"type":"subscribed"');
  },
  // `{"type":"event"...`: byte 9 and 10 are `e` `v`.
  isDelivery: (frame) => frame[9] === 0x65 && frame[10] === 0x76,
  keepAlive: () => false,
});

/** engage-client's compact frames (docs/realtime.md): a live item is an array. */
export const compactDialect = (topic: string): Dialect => ({ ...engageDialect(topic), isDelivery: (frame) => frame[0] === 0x5b });

export const socketIoDialect: Dialect = {
  ready(ws, text) {
    if (text.startsWith('0{')) ws.send('40');
    return text.startsWith('40');
  },
  // Engine.io message packet `4` carrying a Socket.IO event `2`.
  isDelivery: (frame) => frame[0] === 0x34 && frame[1] === 0x32,
  keepAlive(ws, frame) {
    if (frame.length !== 1 || frame[0] !== 0x32) return false;
    ws.send('3');
    return true;
  },
};

const MARK = /t=(\d+(?:\.\d+)?)/;

/**
 * N sockets of one dialect. Every socket counts deliveries; one in `sampleEvery` also parses the
 * send time embedded in the message (`t=<ms>`) for the latency figures, per node.
 */
export class SocketPool {
  readonly sockets: RawSocket[] = [];
  deliveries = 0;
  lastDelivery = 0;
  readonly latency: Samples[];
  /** Per node: message send time → latency of its first sampled delivery (the fan-out's head). */
  readonly firstDelivery: Map<string, number>[];

  constructor(
    private readonly dialect: Dialect,
    nodes: number,
    private readonly sampleEvery = 10,
  ) {
    this.latency = Array.from({ length: nodes }, () => new Samples());
    this.firstDelivery = Array.from({ length: nodes }, () => new Map());
  }

  async open(urls: string[], count: number, concurrency = 200): Promise<void> {
    let next = 0;
    const worker = async () => {
      while (next < count) {
        const index = next++;
        const node = index % urls.length;
        await this.openOne(urls[node] as string, Math.floor(index / urls.length) % this.sampleEvery === 0, node);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  }

  /** Forgets every delivery counted so far (after a warm-up). */
  reset(): void {
    this.deliveries = 0;
    this.lastDelivery = 0;
    for (const samples of this.latency) samples.clear();
    for (const first of this.firstDelivery) first.clear();
  }

  closeAll(): void {
    for (const ws of this.sockets) ws.close();
    this.sockets.length = 0;
  }

  private openOne(url: string, sampled: boolean, node: number): Promise<void> {
    const samples = this.latency[node] as Samples;
    const first = this.firstDelivery[node] as Map<string, number>;
    return new Promise((resolve, reject) => {
      let subscribed = false;
      let socket: RawSocket | undefined;
      const early: Buffer[] = [];
      const onText = (data: Buffer) => {
        if (socket === undefined) {
          early.push(Buffer.from(data));
          return;
        }
        if (!subscribed) {
          subscribed = this.dialect.ready(socket, data.toString());
          if (subscribed) {
            this.sockets.push(socket);
            resolve();
          }
          return;
        }
        if (this.dialect.keepAlive(socket, data) || !this.dialect.isDelivery(data)) return;
        this.deliveries += 1;
        const at = now();
        this.lastDelivery = at;
        if (!sampled) return;
        const sent = MARK.exec(data.toString());
        if (sent === null) return;
        const ms = at - Number(sent[1]);
        samples.add(ms);
        if (!first.has(sent[1] as string)) first.set(sent[1] as string, ms);
      };
      RawSocket.open(url, onText).then((opened) => {
        socket = opened;
        for (const frame of early.splice(0)) onText(frame);
      }, reject);
    });
  }
}
