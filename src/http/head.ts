import type { HttpRequest, HttpResponse, TemplatedApp } from 'uWebSockets.js';

/**
 * Ends an answer. To HEAD (`head`) it goes without its body but with the Content-Length GET's
 * would carry (RFC 9110 §9.3.2): body bytes nobody asked for would be read as the start of the
 * next response on a kept-alive connection. The header is written here because uWS 20.0.8's
 * endWithoutBody(length) leaves the response open (and aborts the process). `close` is for
 * answers to a malformed request line, which is never a HEAD.
 */
export function endAnswer(res: HttpResponse, body: string | Buffer, head: boolean, close = false): void {
  if (head) res.writeHeader('content-length', String(Buffer.byteLength(body))).endWithoutBody();
  else res.end(body, close);
}

/** Registers a handler outside the REST router for GET and for HEAD, which it answers as GET without the body (endAnswer). */
export function getAndHead(app: TemplatedApp, pattern: string, handler: (res: HttpResponse, req: HttpRequest, head: boolean) => void): void {
  app.get(pattern, (res, req) => handler(res, req, false));
  app.head(pattern, (res, req) => handler(res, req, true));
}
