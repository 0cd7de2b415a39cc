import { RawSocket } from '../ws-fanout-raw.js';
import { now } from '../ws-fanout-stats.js';

const ID_AFTER_DATA = /"data":\{"kind":"chat\.event","id":"([^"]+)"/;
/** A room event frame ends with its place in the room: `,"seq":N,"cursor":"…"}`. */
const PLACE_AT_END = /,"seq":(\d+),"cursor":"([^"]+)"\}$/;
/** One socket in SAMPLE_EVERY keeps the arrival time of each event, for the delivery latency. */
const SAMPLE_EVERY = 10;
/** Waits between tries to get a dropped socket back, the last one repeated until the run ends. */
const RETRY_MS = [100, 250, 500, 1000, 2000];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One fan's socket: where it is in the room, so a new connection resumes from there. */
interface Fan {
  index: number;
  sampled: boolean;
  socket: RawSocket | undefined;
  seq: number;
  cursor: string;
}

/**
 * Fans' WebSockets subscribed to one room, spread over the nodes. Each counts the room events it
 * receives by event id, so what was pushed can be checked against what was acknowledged. A socket
 * that drops is opened again, on the next node, and subscribes with the cursor of the latest event
 * it had, as engage-client does: the server replays what it missed, so a drop costs no event.
 */
export class RoomSockets {
  private readonly fans: Fan[] = [];
  private urls: string[] = [];
  private topic = '';
  /** Event id → sockets it reached (above the socket count: some socket had it twice). */
  readonly delivered = new Map<string, number>();
  /** (event id, arrival time) from the sampled sockets. */
  readonly arrivals: { id: string; at: number }[] = [];
  deliveries = 0;
  /** Drops a socket came back from. */
  reconnects = 0;
  errorFrames = 0;
  private closing = false;

  get open(): number {
    return this.fans.filter((f) => f.socket !== undefined).length;
  }

  /** Sockets without a connection at the end of the run: dropped and not back (errors). */
  get closed(): number {
    return this.fans.length - this.open;
  }

  async connect(urls: string[], appid: string, token: string, roomid: string, count: number): Promise<void> {
    this.urls = urls.map((base) => `${base.replace(/^http/, 'ws')}/api/v3/${appid}/ws?token=${encodeURIComponent(token)}`);
    this.topic = `room:${roomid}`;
    let next = 0;
    const worker = async () => {
      while (next < count) {
        const fan: Fan = { index: next, sampled: next % SAMPLE_EVERY === 0, socket: undefined, seq: 0, cursor: '' };
        next++;
        this.fans.push(fan);
        await this.subscribe(fan, fan.index % this.urls.length);
      }
    };
    await Promise.all(Array.from({ length: Math.min(count, 100) }, worker));
  }

  close(): void {
    this.closing = true;
    for (const f of this.fans) f.socket?.close();
  }

  /** Pushes received more than once by one socket, summed over the events. */
  repeats(socketCount: number): number {
    let extra = 0;
    for (const reached of this.delivered.values()) extra += Math.max(0, reached - socketCount);
    return extra;
  }

  private async reconnect(fan: Fan): Promise<void> {
    for (let attempt = 0; !this.closing; attempt++) {
      await sleep(RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)] as number);
      if (this.closing) return;
      const ok = await this.subscribe(fan, (fan.index + attempt + 1) % this.urls.length).then(
        () => true,
        () => false,
      );
      if (ok) {
        this.reconnects++;
        return;
      }
    }
  }

  /** Opens the fan's socket on node `node` and subscribes, from its cursor if it has one. */
  private subscribe(fan: Fan, node: number): Promise<void> {
    const url = this.urls[node] as string;
    const subscription = JSON.stringify(fan.cursor === '' ? { type: 'subscribe', topic: this.topic } : { type: 'subscribe', topic: this.topic, cursor: fan.cursor });
    return new Promise((resolve, reject) => {
      let subscribed = false;
      let socket: RawSocket | undefined;
      const early: Buffer[] = [];
      const onText = (frame: Buffer) => {
        if (socket === undefined) return void early.push(Buffer.from(frame));
        const text = frame.toString('latin1', 0, Math.min(frame.length, 400));
        if (!subscribed) {
          if (text.startsWith('{"type":"ready"')) socket.send(subscription);
          else if (text.startsWith('{"type":"subscribed"')) {
            subscribed = true;
            fan.socket = socket;
            resolve();
          } else if (text.startsWith('{"type":"error"')) reject(new Error(`subscribing ${this.topic}: ${frame.toString()}`));
          return;
        }
        if (text.startsWith('{"type":"error"')) this.errorFrames++;
        this.received(fan, frame, text);
      };
      const onClose = () => {
        if (!subscribed) return reject(new Error(`${url.replace(/token=[^&]+/, 'token=…')} closed before subscribing`));
        fan.socket = undefined;
        if (!this.closing) void this.reconnect(fan);
      };
      RawSocket.open(url, onText, onClose).then((opened) => {
        socket = opened;
        for (const frame of early.splice(0)) onText(frame);
      }, reject);
    });
  }

  private received(fan: Fan, frame: Buffer, head: string): void {
    const id = ID_AFTER_DATA.exec(head)?.[1];
    if (id === undefined) return;
    this.deliveries++;
    this.delivered.set(id, (this.delivered.get(id) ?? 0) + 1);
    if (fan.sampled) this.arrivals.push({ id, at: now() });
    // Events from two nodes may arrive out of order: resume from the furthest one.
    const place = PLACE_AT_END.exec(frame.toString('latin1', Math.max(0, frame.length - 200)));
    const seq = Number(place?.[1] ?? 0);
    if (place !== undefined && place !== null && seq > fan.seq) {
      fan.seq = seq;
      fan.cursor = place[2] as string;
    }
  }
}
