import { connect } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, newApp, type TestApp } from '../helpers/api.js';

/** Sends raw bytes and returns what came back before the server closed or `ms` passed. */
async function raw(text: string, ms = 3000): Promise<{ status: number; headers: string; body: string }> {
  const { hostname, port } = new URL(baseUrl());
  const answer = await new Promise<string>((resolve) => {
    let out = '';
    const socket = connect(Number(port), hostname, () => socket.write(text));
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(out);
    };
    const timer = setTimeout(finish, ms);
    socket.on('data', (d: Buffer) => {
      out += d.toString('latin1');
      // One complete answer is enough: the head and as many body bytes as it announces.
      const head = out.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(out.slice(0, head))?.[1];
      if (head >= 0 && (out.startsWith('HTTP/1.1 101') || (length !== undefined && out.length >= head + 4 + Number(length)))) finish();
    });
    socket.on('error', finish);
    socket.on('close', finish);
  });
  const head = answer.indexOf('\r\n\r\n');
  return { status: Number(answer.slice(9, 12)), headers: answer.slice(0, head), body: answer.slice(head + 4) };
}

function expectEnvelope(answer: { status: number; headers: string; body: string }, status: number) {
  expect(answer.status, answer.headers + answer.body).toBe(status);
  expect(answer.headers).toMatch(/content-type: application\/json/i);
  expect(JSON.parse(answer.body)).toMatchObject({ kind: 'api.result', code: status });
}

let app: TestApp;
beforeAll(async () => {
  app = await newApp();
});

describe('answers uWS would give outside the envelope', () => {
  it('ids and headers of a few KB reach the application and are answered in the envelope', async () => {
    const longId = 'a'.repeat(5000);
    expectEnvelope(await raw(`GET /api/v3/${app.appid}/chat/rooms/${longId} HTTP/1.1\r\nHost: x\r\nx-api-token: ${app.token}\r\n\r\n`), 404);
    expectEnvelope(await raw(`GET /api/v3/${app.appid}/chat/rooms HTTP/1.1\r\nHost: x\r\nx-api-token: ${'t'.repeat(6000)}\r\n\r\n`), 403);
    const jwt = 'j'.repeat(7000);
    expectEnvelope(await raw(`GET /api/v3/${app.appid}/chat/rooms HTTP/1.1\r\nHost: x\r\nx-api-token: ${app.token}\r\nAuthorization: Bearer ${jwt}\r\n\r\n`), 403);
  });

  it('headers the application will not read answer 431 in the envelope', async () => {
    expectEnvelope(await raw(`GET /api/v3/${app.appid}/chat/rooms/${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\nx-api-token: ${app.token}\r\n\r\n`), 431);
    expectEnvelope(await raw(`GET /api/v3/${app.appid}/chat/rooms HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${'j'.repeat(20_000)}\r\n\r\n`), 431);
  });
});
