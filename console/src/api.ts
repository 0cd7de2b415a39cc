import type { Session } from './session.js';

/** The server's envelope: `{kind:"api.result", message, code, errors, data}`. */
interface Envelope<T> {
  message: string;
  code: number;
  errors: Record<string, string>;
  data: T;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Calls the server and unwraps the envelope; a non-2xx answer throws its message. */
export async function call<T>(method: string, url: string, headers: Record<string, string>, body?: unknown): Promise<T> {
  const res = await fetch(url, {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: Envelope<T> | undefined;
  try {
    parsed = text === '' ? undefined : (JSON.parse(text) as Envelope<T>);
  } catch {
    parsed = undefined;
  }
  if (!res.ok) {
    const fields =
      parsed?.errors === undefined
        ? ''
        : Object.entries(parsed.errors)
            .map(([field, why]) => ` ${field}: ${why}.`)
            .join('');
    throw new ApiError(res.status, `${parsed?.message || `HTTP ${res.status}`}${fields}`);
  }
  return parsed?.data as T;
}

/** The v3 API of the signed-in application: paths relative to /api/v3/{appid}/. */
export class Api {
  constructor(readonly session: Session) {}

  private headers(): Record<string, string> {
    const h: Record<string, string> = { 'x-api-token': this.session.token };
    if (this.session.jwt !== '') h['authorization'] = `Bearer ${this.session.jwt}`;
    return h;
  }

  url(path: string): string {
    return `/api/v3/${encodeURIComponent(this.session.appid)}/${path}`;
  }

  get<T>(path: string): Promise<T> {
    return call<T>('GET', this.url(path), this.headers());
  }
  post<T>(path: string, body: unknown = {}): Promise<T> {
    return call<T>('POST', this.url(path), this.headers(), body);
  }
  put<T>(path: string, body?: unknown): Promise<T> {
    return call<T>('PUT', this.url(path), this.headers(), body);
  }
  delete<T>(path: string): Promise<T> {
    return call<T>('DELETE', this.url(path), this.headers());
  }
}

/** One URL path segment. */
export const seg = encodeURIComponent;
