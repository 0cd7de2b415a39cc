import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Logger } from '../logger.js';
import type { Delivery } from './sender.js';
import { unanswered, type Attempt } from './types.js';

export interface SendRequest {
  id: number;
  secret: string;
  delivery: Delivery;
}

// The same extension as this module: .ts when run from source, .js when built. Run from source,
// the thread registers tsx itself: the main thread's `--import tsx` does not reach workers.
const ENTRY = new URL(`./send-thread-entry${extname(fileURLToPath(import.meta.url))}`, import.meta.url);
const BOOT = ENTRY.pathname.endsWith('.ts')
  ? `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(ENTRY.href)}); })`
  : `import(${JSON.stringify(ENTRY.href)})`;

/**
 * Postpublish deliveries are sent from a worker thread: the HTTP client's work (a socket write
 * per attempt, parsing the answer) then stays off the thread that serves requests. Requests made
 * within one turn go over in one message, and answers come back the same way. If the thread
 * dies, its open attempts count as failed (they are retried from the outbox) and the next
 * send starts a new one.
 */
export class SendThread {
  private worker: Worker | undefined;
  private nextId = 0;
  private readonly open = new Map<number, { delivery: Delivery; resolve: (attempt: Attempt) => void }>();
  private queued: SendRequest[] = [];

  constructor(private readonly log: Logger) {}

  send(secret: string, delivery: Delivery): Promise<Attempt> {
    return new Promise((resolve) => {
      const id = ++this.nextId;
      this.open.set(id, { delivery, resolve });
      if (this.queued.push({ id, secret, delivery }) === 1) setImmediate(() => this.flush());
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

  private flush(): void {
    const batch = this.queued;
    this.queued = [];
    this.thread().postMessage(batch);
  }

  private thread(): Worker {
    if (this.worker !== undefined) return this.worker;
    const worker = new Worker(BOOT, { eval: true });
    worker.on('message', (answers: [number, Attempt][]) => {
      for (const [id, attempt] of answers) {
        this.open.get(id)?.resolve(attempt);
        this.open.delete(id);
      }
    });
    worker.on('error', (err) => this.log.error({ err }, 'webhook sending thread failed'));
    worker.on('exit', () => {
      if (this.worker === worker) this.worker = undefined;
      for (const [id, { delivery, resolve }] of this.open) {
        resolve(unanswered(delivery, 'the sending thread stopped'));
        this.open.delete(id);
      }
    });
    this.worker = worker;
    return worker;
  }
}
