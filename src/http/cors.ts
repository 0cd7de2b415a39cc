/**
 * CORS_ORIGINS: which browser origins may call the API (`*`: any). The answer to a request names
 * its origin when allowed; a WebSocket upgrade with a client token must come from one.
 */
export class CorsPolicy {
  readonly anyOrigin: boolean;
  private readonly origins: Set<string>;

  constructor(origins: string[]) {
    this.anyOrigin = origins.includes('*');
    this.origins = new Set(origins);
  }

  /** The `access-control-allow-origin` value for a request from `origin`; '' when none is sent. */
  allowOrigin(origin: string): string {
    if (this.anyOrigin) return '*';
    return this.origins.has(origin) ? origin : '';
  }

  /** A request without an Origin header does not come from a web page (a native app, a backend): nothing to check. */
  allowsSocketFrom(origin: string): boolean {
    return this.anyOrigin || origin === '' || this.origins.has(origin);
  }
}
