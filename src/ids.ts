import { randomBytes } from 'node:crypto';
import { uuidv7 } from 'uuidv7';

/** Time-ordered, URL-safe, unique across nodes. */
export const newId = (): string => uuidv7();

export const newSecret = (bytes = 32): string => randomBytes(bytes).toString('base64url');
