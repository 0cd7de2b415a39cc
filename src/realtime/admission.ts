import { sseMetrics } from '../metrics/registry.js';

export type Admission = { admitted: true; release(): void } | { admitted: false; status: number; message: string; retryAfterSeconds?: number };

/**
 * The one door every long-lived connection other than a WebSocket upgrade passes (event streams
 * today): a per-process or per-address connection cap belongs here, and a refusal is answered with
 * its status before anything is held. Today it admits every stream and counts it.
 */
export function admitLongLivedConnection(_address: string): Admission {
  sseMetrics.connections.inc();
  let released = false;
  return {
    admitted: true,
    release() {
      if (released) return;
      released = true;
      sseMetrics.connections.dec();
    },
  };
}
