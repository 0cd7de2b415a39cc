import { MANAGE_TOKEN } from '../../test/helpers/spawn.js';

/** An API client for one application of a server a benchmark started (no vitest here). */
export interface BenchApp {
  appid: string;
  token: string;
  url(path: string): string;
  call<T = unknown>(method: string, path: string, body?: unknown): Promise<T>;
}

async function json<T>(res: Response, what: string): Promise<T> {
  const text = await res.text();
  if (!res.ok) throw new Error(`${what} answered ${res.status}: ${text}`);
  return (JSON.parse(text) as { data: T }).data;
}

/** Creates an application and a token on the server at `base`. */
export async function benchApp(base: string): Promise<BenchApp> {
  const manage = <T>(path: string, body: unknown) =>
    fetch(`${base}/api/v3/manage/${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-manage-token': MANAGE_TOKEN }, body: JSON.stringify(body) }).then((r) =>
      json<T>(r, path),
    );
  const { appid } = await manage<{ appid: string }>('createapplication', { name: 'bench' });
  const { token } = await manage<{ token: string }>('createtoken', { applicationid: appid, name: 'bench' });
  return benchClient(base, appid, token);
}

/** The client of an application already made, on the server at `base` (one restarted on another port). */
export function benchClient(base: string, appid: string, token: string): BenchApp {
  const url = (path: string) => `${base}/api/v3/${appid}/${path}`;
  return {
    appid,
    token,
    url,
    call: <T>(method: string, path: string, body?: unknown) =>
      fetch(url(path), { method, headers: { 'content-type': 'application/json', 'x-api-token': token }, body: body === undefined ? undefined : JSON.stringify(body) }).then((r) =>
        json<T>(r, `${method} ${path}`),
      ),
  };
}
