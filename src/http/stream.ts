import type { Readable } from 'node:stream';
import type { HttpResponse } from 'uWebSockets.js';
import { statusLine } from './status.js';

/** A body sent as it is made (a backup file), of a length not known before its end. */
export interface StreamedBody {
  contentType: string;
  headers: [string, string][];
  body: Readable;
}

/**
 * Sends `streamed` as a 200 in chunks (chunked transfer encoding), reading the body only as fast
 * as the client takes it. A body that fails midway closes the connection without the last chunk,
 * so the client sees the answer cut short rather than complete; a client that goes away
 * (`aborted` registers the callback) destroys the body, which ends whatever makes it.
 */
export function sendStream(res: HttpResponse, streamed: StreamedBody, common: [string, string][], aborted: (then: () => void) => void, done: (complete: boolean) => void): void {
  const { body } = streamed;
  let gone = false;
  aborted(() => {
    gone = true;
    body.destroy();
    done(false);
  });
  res.cork(() => {
    res.writeStatus(statusLine(200)).writeHeader('content-type', streamed.contentType);
    for (const [name, value] of [...common, ...streamed.headers]) res.writeHeader(name, value);
  });
  body.on('data', (chunk: Buffer) => {
    if (gone) return;
    let flowing = true;
    res.cork(() => {
      flowing = res.write(chunk);
    });
    if (flowing) return;
    body.pause();
    res.onWritable(() => {
      body.resume();
      return true;
    });
  });
  body.once('end', () => {
    if (gone) return;
    gone = true;
    res.cork(() => res.end());
    done(true);
  });
  body.once('error', () => {
    if (gone) return;
    gone = true;
    res.close();
    done(false);
  });
}
