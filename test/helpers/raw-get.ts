import { request as httpRequest } from 'node:http';
import { baseUrl } from './api.js';

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A GET sent exactly as written: the path unnormalised, and only these headers (fetch would add and undo its own Accept-Encoding). */
export function rawGet(path: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  return rawRequest('GET', path, headers);
}

/** Any request sent as written, as rawGet; `body` is sent as JSON. */
export function rawRequest(method: string, path: string, headers: Record<string, string> = {}, body?: unknown): Promise<RawAnswer> {
  const url = new URL(baseUrl());
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path, method, headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}
