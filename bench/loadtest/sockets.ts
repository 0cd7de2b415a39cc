import { RawSocket } from '../ws-fanout-raw.js';
import { now } from '../ws-fanout-stats.js';

const ID_AFTER_DATA = /"data":\{"kind":"chat\.event","id":"([^"]+)"/;
/** One socket in SAMPLE_EVERY keeps the arrival time of each event, for the delivery latency. */
const SAMPLE_EVERY = 10;

/**
 * Fans' WebSockets subscribed to one room, spread over the nodes. Each counts the room events it
 * receives by event id, so what was pushed can be checked against what was acknowledged.
 */
export class RoomSockets {
  private readonly sockets: RawSocket[] = [];
  /** Event id → sockets it reached. */
  readonly delivered = new Map<string, number>();
  /** (event id, arrival time) from the sampled sockets. */
  readonly arrivals: { id: string; at: number }[] = [];
  deliveries = 0;
  /** Sockets that closed before the end, and error frames: both count as errors. */
  closed = 0;
  errorFrames = 0;
  private closing = false;

  get open(): number {
    return this.sockets.length - this.closed;
  }

  async connect(urls: string[], appid: string, token: string, roomid: string, count: number): Promise<void> {
    let next = 0;
    const worker = async () => {
      while (next < count) {
        const index = next++;
        const base = (urls[index % urls.length] as string).replace(/^http/, 'ws');
        await this.openOne(`${base}/api/v3/${appid}/ws?token=${encodeURIComponent(token)}`, `room:${roomid}`, index % SAMPLE_EVERY === 0);
      }
    };
    await Promise.all(Array.from({ length: Math.min(count, 100) }, worker));
  }

  close(): void {
    this.closing = true;
    for (const s of this.sockets) s.close();
  }

  private openOne(url: string, topic: string, sampled: boolean): Promise<void> {
    return new Promise((resolve, reject) => {
      let subscribed = false;
      let socket: RawSocket | undefined;
      const early: Buffer[] = [];
      const onText = (frame: Buffer) => {
        if (socket === undefined) return void early.push(Buffer.from(frame));
        const text = frame.toString('latin1', 0, Math.min(frame.length, 400));
        if (!subscribed) {
          if (text.startsWith('{"type":"ready"')) socket.send(JSON.stringify({ type: 'subscribe', topic }));
          else if (text.startsWith('{"type":"subscribed"')) {
            subscribed = true;
            this.sockets.push(socket);
            resolve();
          } else if (text.startsWith('{"type":"error"')) reject(new Error(`subscribing ${topic}: ${frame.toString()}`));
          return;
        }
        if (text.startsWith('{"type":"error"')) this.errorFrames++;
        const id = ID_AFTER_DATA.exec(text)?.[1];
        if (id === undefined) return;
        this.deliveries++;
        this.delivered.set(id, (this.delivered.get(id) ?? 0) + 1);
        if (sampled) this.arrivals.push({ id, at: now() });
      };
      const onClose = () => {
        if (!this.closing && subscribed) this.closed++;
        if (!subscribed) reject(new Error(`${url.replace(/token=[^&]+/, 'token=…')} closed before subscribing`));
      };
      RawSocket.open(url, onText, onClose).then((opened) => {
        socket = opened;
        for (const frame of early.splice(0)) onText(frame);
      }, reject);
    });
  }
}
