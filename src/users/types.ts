import type { users } from '../db/schema/index.js';

export type User = typeof users.$inferSelect;
export type Role = 'user' | 'moderator' | 'admin';
export const ROLES = ['user', 'moderator', 'admin'] as const;

/** User fields a request may carry (join, comment, create/update); absent ones are left as they are. */
export interface UserInput {
  userid: string;
  handle?: string | undefined;
  displayname?: string | undefined;
  pictureurl?: string | undefined;
  profileurl?: string | undefined;
  role?: Role | undefined;
  customtags?: string[] | undefined;
}

/** A global effect (ban, shadow ban, mute), in force unless its expiry has passed. */
export function effectActive(on: boolean, until: Date | null, now = Date.now()): boolean {
  return on && (until === null || until.getTime() > now);
}
