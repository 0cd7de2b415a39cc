import { blockedByRule } from '../errors.js';

const ALLOWED = /^[A-Za-z0-9_]+$/;
export const MAX_HANDLE = 64;
const VARIANTS = 99;

export function assertValidHandle(handle: string): void {
  if (!ALLOWED.test(handle) || handle.length > MAX_HANDLE) {
    throw blockedByRule(`The handle requested (${handle}) contains characters that are not allowed.  Use only [abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ1234567890_]`);
  }
}

/** A handle made from a display name or user id: the allowed characters, else `user`. */
export function handleFrom(source: string): string {
  const cleaned = source
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9_]/g, '')
    .slice(0, MAX_HANDLE - 2);
  return cleaned === '' ? 'user' : cleaned;
}

/** The base handle, then base1 .. base99 (api-surface.md: a free variant is made by appending 1..99). */
export function handleCandidates(base: string): string[] {
  const trimmed = base.slice(0, MAX_HANDLE - 2);
  return [base, ...Array.from({ length: VARIANTS }, (_, i) => `${trimmed}${i + 1}`)];
}
