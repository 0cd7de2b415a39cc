import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { baseUrl } from '../helpers/api.js';

/** Sends raw bytes; resolves with what came back and whether the server closed the connection within `waitMs`. */
function exchange(raw: string, waitMs = 1000): Promise<{ answer: string; closed: boolean; ms: number }> {
  const { hostname, port } = new URL(baseUrl());
  const started = performance.now();
  return new Promise((resolve, reject) => {
    let answer = '';
    const socket = connect(Number(port), hostname, () => socket.write(raw));
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ answer, closed: false, ms: performance.now() - started });
    }, waitMs);
    socket.on('data', (d: Buffer) => (answer += d.toString()));
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ answer, closed: true, ms: performance.now() - started });
    });
  });
}

describe('the request line', () => {
  it('refuses a lower-case or otherwise odd method with 400 in the envelope, and closes the connection', async () => {
    for (const method of ['get', 'Get', 'G@T', 'post']) {
      const { answer, closed } = await exchange(`${method} /healthz HTTP/1.1\r\nHost: x\r\n\r\n`);
      expect(answer, method).toMatch(/^HTTP\/1\.1 400 /);
      expect(answer, method).toContain('"code":400');
      expect(closed, method).toBe(true);
    }
  });

  it('refuses a lower-case method on a WebSocket upgrade and on an event stream too', async () => {
    const upgrade = 'Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n';
    for (const [what, raw] of [
      ['upgrade', `get /api/v3/someapp/ws HTTP/1.1\r\nHost: x\r\n${upgrade}\r\n`],
      ['event stream', 'get /api/v3/someapp/sse?topic=room:r HTTP/1.1\r\nHost: x\r\n\r\n'],
    ] as const) {
      const { answer, closed } = await exchange(raw);
      expect(answer, what).toMatch(/^HTTP\/1\.1 400 /);
      expect(answer, what).toContain('is not a method');
      expect(closed, what).toBe(true);
    }
  });

  it('still answers the upper-case method on a kept-alive connection', async () => {
    const { answer, closed } = await exchange('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n', 300);
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(closed).toBe(false);
  });

  it('answers another HTTP version with 505 at once and closes the connection', async () => {
    const { answer, closed, ms } = await exchange('GET /healthz HTTP/1.0\r\nHost: x\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 505 /);
    expect(closed).toBe(true);
    expect(ms).toBeLessThan(1000);
  });
});
