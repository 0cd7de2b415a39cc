/** How long a refused client is asked to wait before it tries to connect again. */
export const CONNECTION_RETRY_AFTER_SECONDS = 10;

export interface ConnectionCaps {
  /** Long-lived connections (WebSockets, event streams) this process holds at most. */
  total: number;
  /** Of those, from one client address. */
  perAddress: number;
}

export type Admission =
  | { admitted: true /** Gives the place back; call once when the connection ends (later calls do nothing). */; release: () => void }
  | { admitted: false; status: 429 | 503; message: string; retryAfter: number };

/**
 * Admission of long-lived connections: a process-wide cap kept below the file-descriptor limit
 * (so sockets can never starve HTTP requests and the database of descriptors) and a cap per
 * client address. Any kind of long-lived connection asks `admit` before it holds anything and
 * calls `release` when it ends; past a cap the caller refuses at once with the status given.
 */
export class ConnectionAdmission {
  private held = 0;
  private readonly byAddress = new Map<string, number>();

  constructor(readonly caps: ConnectionCaps) {}

  admit(address: string): Admission {
    if (this.held >= this.caps.total) {
      return { admitted: false, status: 503, message: `This server holds as many connections as it may (${this.caps.total}); try again shortly.`, retryAfter: CONNECTION_RETRY_AFTER_SECONDS };
    }
    const fromAddress = this.byAddress.get(address) ?? 0;
    if (fromAddress >= this.caps.perAddress) {
      return { admitted: false, status: 429, message: `Too many connections from this address (${this.caps.perAddress}).`, retryAfter: CONNECTION_RETRY_AFTER_SECONDS };
    }
    this.held += 1;
    this.byAddress.set(address, fromAddress + 1);
    let released = false;
    return {
      admitted: true,
      release: () => {
        if (released) return;
        released = true;
        this.held -= 1;
        const left = (this.byAddress.get(address) ?? 1) - 1;
        if (left === 0) this.byAddress.delete(address);
        else this.byAddress.set(address, left);
      },
    };
  }

  /** Connections held now. */
  count(): number {
    return this.held;
  }
}
