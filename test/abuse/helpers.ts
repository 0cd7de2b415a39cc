import { readFileSync } from 'node:fs';
import { Client, manage, type TestApp } from '../helpers/api.js';
import { bearer, userToken } from '../foundation/util.js';

/** The application's public client token, as every browser holds it. */
export async function clientToken(app: TestApp, base: string): Promise<string> {
  const made = await manage('createtoken', { applicationid: app.appid, name: 'browser', scope: 'client' }, base);
  return made.body.data.token as string;
}

/** A plain user signed in: the client token with that user's JWT. */
export async function signedIn(app: TestApp, base: string, token: string, userid: string, role = 'user'): Promise<Client> {
  return new Client(base, app.appid, token, bearer(await userToken(app.jwtsecret, { userid, role })));
}

/** The resident set size of a process, in bytes (Linux). */
export function rssOf(pid: number): number {
  const kb = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  if (kb === undefined) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kb) * 1024;
}
