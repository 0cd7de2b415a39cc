import type { HttpResponse } from 'uWebSockets.js';
import { envelope } from './envelope.js';
import { endAnswer } from './head.js';

/** uWS matches methods in any case; HTTP's are case-sensitive (RFC 9110), so `get` is no GET. */
export function isMethod(method: string): boolean {
  return /^[A-Z]+$/.test(method);
}

export function notAMethod(method: string): string {
  return envelope(400, `Malformed request line: ${method} is not a method (methods are upper case).`, null);
}

/** For the routes uWS serves without the REST router (WebSocket upgrades, event streams): 400, connection closed. */
export function refuseNotAMethod(res: HttpResponse, method: string): void {
  res.cork(() => res.writeStatus('400 Bad Request').writeHeader('content-type', 'application/json; charset=utf-8').end(notAMethod(method), true));
}

export function methodNotAllowed(method: string, allowed: readonly string[]): string {
  return envelope(405, `Method ${method} is not allowed here; use ${allowed.join(', ')}.`, null);
}

/** For the routes uWS serves without the REST router: another method is answered 405 with `Allow`, as the router answers it. */
export function refuseMethod(res: HttpResponse, method: string, allowed: readonly string[]): void {
  if (!isMethod(method)) return refuseNotAMethod(res, method);
  res.cork(() => {
    res.writeStatus('405 Method Not Allowed').writeHeader('content-type', 'application/json; charset=utf-8').writeHeader('allow', allowed.join(', '));
    endAnswer(res, methodNotAllowed(method, allowed), method === 'HEAD');
  });
}
