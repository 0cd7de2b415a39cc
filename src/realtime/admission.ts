import type { HttpResponse } from 'uWebSockets.js';
import { envelope } from '../http/envelope.js';
import { statusLine } from '../http/status.js';
import type { Admission } from '../limits/connections.js';

/** Past a connection cap a long-lived connection (WebSocket upgrade or event stream) is answered at once, with when to try again, and closed so it holds no descriptor. */
export function refuseConnection(res: HttpResponse, refusal: Extract<Admission, { admitted: false }>): void {
  res.cork(() =>
    res
      .writeStatus(statusLine(refusal.status))
      .writeHeader('content-type', 'application/json; charset=utf-8')
      .writeHeader('retry-after', String(refusal.retryAfter))
      .end(envelope(refusal.status, refusal.message, { retryafter: refusal.retryAfter }), true),
  );
}
