import { RawSocket } from '../ws-fanout-raw.js';
import { now } from '../ws-fanout-stats.js';
import { deliveryFaults, type DeliveryFaults } from './faults.js';

const ID_AFTER_DATA = /"data":\{"kind":"chat\.event","id":"([^"]+)"/;
/** A room event frame ends with its place in the room: `,"seq":N,"prev":P,"cursor":"…"}` (`prev`: the seq before it in this stream). */
const PLACE_AT_END = /,"seq":(\d+)(?:,"prev":(\d+))?,"cursor":"([^"]+)"\}$/;
/** One socket in SAMPLE_EVERY keeps the arrival time of each event, for the delivery latency. */
const SAMPLE_EVERY = 10;
/** Waits between tries to get a dropped socket back, the last one repeated until the run ends. */
const RETRY_MS = [100, 250, 500, 1000, 2000];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Place {
  prev: number | undefined;
  cursor: string;
}

/** One fan's socket: what it received, and where it is in the room with nothing missing before, so a new connection resumes from there. */
interface Fan {
  index: number;
  sampled: boolean;
  socket: RawSocket | undefined;
  /** Event id → times it arrived on this fan's sockets. */
  received: Map<string, number>;
  /** The last seq received with every one before it received (or named as skipped by `prev`); 0 before the first. */
  seq: number;
  cursor: string;
  /** Events past a hole, by seq: the position moves over them once the hole is filled. */
  ahead: Map<number, Place>;
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
        const fan: Fan = { index: next, sampled: next % SAMPLE_EVERY === 0, socket: undefined, received: new Map(), seq: 0, cursor: '', ahead: new Map() };
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

  /** Misses and repeats of the acknowledged room events, socket by socket. */
  faults(expected: readonly string[]): DeliveryFaults {
    return deliveryFaults(
      expected,
      this.fans.map((f) => f.received),
    );
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
    fan.received.set(id, (fan.received.get(id) ?? 0) + 1);
    if (fan.sampled) this.arrivals.push({ id, at: now() });
    const place = PLACE_AT_END.exec(frame.toString('latin1', Math.max(0, frame.length - 200)));
    if (place === null) return;
    const seq = Number(place[1]);
    if (seq > fan.seq) fan.ahead.set(seq, { prev: place[2] === undefined ? undefined : Number(place[2]), cursor: place[3] as string });
    advance(fan);
  }
}

/** Moves the fan's position over the events that follow on from it, so that a resume never skips a hole (engage-client does the same). */
function advance(fan: Fan): void {
  for (;;) {
    const next = Math.min(...fan.ahead.keys());
    const place = fan.ahead.get(next);
    if (place === undefined || !(fan.seq === 0 || next === fan.seq + 1 || place.prev === fan.seq)) return;
    fan.ahead.delete(next);
    fan.seq = next;
    fan.cursor = place.cursor;
  }
}
