/** One server-sent event as the browser's EventSource would see it. */
export interface SseEvent {
  id: string | undefined;
  event: string;
  data: string;
}

/** Reads a `text/event-stream` response with fetch, parsing events and counting comment lines. */
export class SseReader {
  readonly events: SseEvent[] = [];
  /** The last `id:` received, with or without an event: what the browser would send as Last-Event-ID. */
  lastId: string | undefined;
  comments = 0;
  status = 0;
  headers = new Headers();
  body = '';
  /** Bytes of the stream read (after fetch undid any content encoding), and why reading it failed, if it did. */
  bytes = 0;
  failure: string | undefined;
  private readonly abort = new AbortController();
  private done: Promise<void> = Promise.resolve();

  static async open(url: string, headers: Record<string, string> = {}): Promise<SseReader> {
    const reader = new SseReader();
    const res = await fetch(url, { headers, signal: reader.abort.signal });
    reader.status = res.status;
    reader.headers = res.headers;
    if (res.status !== 200) {
      reader.body = await res.text();
      return reader;
    }
    reader.done = reader.read(res.body as ReadableStream<Uint8Array>).catch((err: Error) => {
      reader.failure = err.message;
    });
    return reader;
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of body) {
      this.bytes += chunk.length;
      buffer += decoder.decode(chunk, { stream: true });
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        this.parse(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
      }
    }
  }

  private parse(block: string): void {
    const event: SseEvent = { id: undefined, event: 'message', data: '' };
    let fields = 0;
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) {
        this.comments++;
        continue;
      }
      const colon = line.indexOf(':');
      const [name, value] = [line.slice(0, colon), line.slice(colon + 1).replace(/^ /, '')];
      if (name === 'id') event.id = value;
      else if (name === 'event') event.event = value;
      else if (name === 'data') event.data += value;
      else continue;
      fields++;
    }
    if (event.id !== undefined) this.lastId = event.id;
    if (fields > 0 && event.data !== '') this.events.push(event);
  }

  /** Resolves once the server ended the stream (or it was closed here). */
  ended(): Promise<void> {
    return this.done;
  }

  /** Waits until `count` events arrived. */
  async count(count: number, ms = 10_000): Promise<SseEvent[]> {
    const deadline = Date.now() + ms;
    while (this.events.length < count) {
      if (Date.now() > deadline)
        throw new Error(
          `expected ${count} events, got ${this.events.length} (status ${this.status}, ${this.comments} comments, ${this.bytes} bytes read${this.failure === undefined ? '' : `, reading failed: ${this.failure}`}): ${JSON.stringify(this.events).slice(0, 2000)}`,
        );
      await new Promise((r) => setTimeout(r, 20));
    }
    return this.events;
  }

  async close(): Promise<void> {
    this.abort.abort();
    await this.done;
  }
}
