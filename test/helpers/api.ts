// Response bodies are arbitrary JSON; tests read them loosely and assert on the values, so `any` is the honest type here.
/* eslint-disable @typescript-eslint/no-explicit-any */
import { inject } from 'vitest';
import { MANAGE_TOKEN } from './spawn.js';

export interface Envelope<T = any> {
  kind: string;
  message: string;
  code: number;
  errors: Record<string, string>;
  data: T;
}

export interface Response<T = any> {
  status: number;
  body: Envelope<T>;
  headers: Headers;
}

export function baseUrl(): string {
  return inject('baseUrl');
}

export async function request<T = any>(method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response<T>> {
  const res = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text === '' ? undefined : JSON.parse(text)) as Envelope<T>, headers: res.headers };
}

/** A client bound to one application: paths are relative to /api/v3/{appid}/. */
export class Client {
  constructor(
    readonly base: string,
    readonly appid: string,
    readonly token: string,
    readonly extraHeaders: Record<string, string> = {},
  ) {}

  url(path: string): string {
    return `${this.base}/api/v3/${this.appid}/${path}`;
  }

  withHeaders(headers: Record<string, string>): Client {
    return new Client(this.base, this.appid, this.token, { ...this.extraHeaders, ...headers });
  }

  send<T = any>(method: string, path: string, body?: unknown): Promise<Response<T>> {
    return request<T>(method, this.url(path), body, { 'x-api-token': this.token, ...this.extraHeaders });
  }
  get<T = any>(path: string) {
    return this.send<T>('GET', path);
  }
  post<T = any>(path: string, body: unknown = {}) {
    return this.send<T>('POST', path, body);
  }
  put<T = any>(path: string, body: unknown = {}) {
    return this.send<T>('PUT', path, body);
  }
  delete<T = any>(path: string, body?: unknown) {
    return this.send<T>('DELETE', path, body);
  }
}

export interface TestApp {
  appid: string;
  token: string;
  jwtsecret: string;
  webhooksecret: string;
  api: Client;
}

export async function manage<T = any>(path: string, body: unknown, base = baseUrl()): Promise<Response<T>> {
  return request<T>('POST', `${base}/api/v3/manage/${path}`, body, { 'x-manage-token': MANAGE_TOKEN });
}

/** A fresh application with a token, so each test file works in isolation. */
export async function newApp(settings: Record<string, unknown> = {}, base = baseUrl()): Promise<TestApp> {
  const created = await manage('createapplication', { name: 'test', ...settings }, base);
  if (created.status !== 200) throw new Error(`createapplication failed: ${JSON.stringify(created.body)}`);
  const app = created.body.data;
  const token = await manage('createtoken', { applicationid: app.appid, name: 'test' }, base);
  return { appid: app.appid, token: token.body.data.token, jwtsecret: app.jwtsecret, webhooksecret: app.webhooksecret, api: new Client(base, app.appid, token.body.data.token) };
}

let counter = 0;
/** A unique id for users, rooms, ... within a test run. */
export function uid(prefix = 'id'): string {
  counter += 1;
  // Digits only after the prefix: random letters can spell a word the profanity filter refuses.
  return `${prefix}${Date.now()}${counter}${Math.floor(Math.random() * 1e6)}`;
}
