/**
 * A node on its way out (SIGTERM): while it drains it still serves, says 503 on /readyz so load
 * balancers steer new requests away, and closes each connection after its answer so keep-alive
 * clients move. It counts the requests received and not yet answered, so the stop waits for them
 * instead of resetting them.
 */
export class Drain {
  draining = false;
  private unanswered = 0;
  private lastReceived = 0;
  private readonly whenNone: (() => void)[] = [];

  begin(): void {
    this.draining = true;
  }

  received(): void {
    this.unanswered++;
    this.lastReceived = performance.now();
  }

  /** Once per received request: answered, or its client went away. */
  settled(): void {
    this.unanswered--;
    if (this.unanswered === 0) for (const resolve of this.whenNone.splice(0)) resolve();
  }

  /** Settles once every request received so far is answered. */
  allAnswered(): Promise<void> {
    return this.unanswered === 0 ? Promise.resolve() : new Promise((resolve) => this.whenNone.push(resolve));
  }

  /**
   * Settles once every request is answered and none has arrived for `quietMs`. After the listener
   * closes, a connection it accepted just before may still be carrying its request: closing it
   * then would reset that request.
   */
  async quiet(quietMs: number): Promise<void> {
    for (;;) {
      await this.allAnswered();
      const since = performance.now() - this.lastReceived;
      if (since >= quietMs && this.unanswered === 0) return;
      await new Promise((resolve) => setTimeout(resolve, Math.max(quietMs - since, 10)));
    }
  }
}
