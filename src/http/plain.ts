import type { HttpResponse } from 'uWebSockets.js';
import { endAnswer } from './head.js';
import { statusLine } from './status.js';

/**
 * Answers outside the JSON envelope (the metrics text, API documents, the reference page and its
 * assets), for handlers registered on the uWS app directly rather than in the route table.
 * `body` may be a promise: the answer waits for it unless the client has gone. To HEAD (`head`)
 * the answer carries no body (endAnswer).
 */
export function sendPlain(res: HttpResponse, status: number, contentType: string, body: string | Buffer | Promise<string>, headers: [string, string][] = [], head = false): void {
  if (typeof body === 'string' || Buffer.isBuffer(body)) return write(res, status, contentType, body, headers, head);
  let aborted = false;
  res.onAborted(() => {
    aborted = true;
  });
  body.then(
    (text) => aborted || write(res, status, contentType, text, headers, head),
    () => aborted || write(res, 500, 'text/plain; charset=utf-8', 'Internal server error.\n', [], head),
  );
}

function write(res: HttpResponse, status: number, contentType: string, body: string | Buffer, headers: [string, string][], head: boolean): void {
  res.cork(() => {
    res.writeStatus(statusLine(status));
    res.writeHeader('content-type', contentType);
    res.writeHeader('access-control-allow-origin', '*');
    for (const [name, value] of headers) res.writeHeader(name, value);
    endAnswer(res, body, head);
  });
}
