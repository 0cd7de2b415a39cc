import { SignJWT } from 'jose';
import { expect } from 'vitest';
import type { Response } from '../helpers/api.js';

/** A user token for an application (HS256 with the app's jwtsecret). */
export async function userToken(jwtsecret: string, claims: Record<string, unknown>, options: { expiresAt?: number; audience?: string[] } = {}): Promise<string> {
  let jwt = new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt();
  if (options.audience !== undefined) jwt = jwt.setAudience(options.audience);
  if (options.expiresAt !== undefined) jwt = jwt.setExpirationTime(options.expiresAt);
  return jwt.sign(new TextEncoder().encode(jwtsecret));
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Asserts the envelope every response carries (api-surface.md, Conventions). */
export function expectEnvelope(res: Response, status: number): void {
  expect(res.status).toBe(status);
  expect(res.body).toBeTypeOf('object');
  expect(res.body.kind).toBe('api.result');
  expect(res.body.code).toBe(status);
  expect(typeof res.body.message).toBe('string');
  expect(res.body.errors).toBeTypeOf('object');
  expect(res.body.errors).not.toBeNull();
  expect('data' in res.body).toBe(true);
  if (status === 200) expect(res.body.errors).toEqual({});
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
