import type { HttpResponse } from 'uWebSockets.js';
import { envelope } from './envelope.js';

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
