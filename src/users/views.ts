import { effectActive, type User } from './types.js';
import { isoOrNull } from '../iso.js';


/** The app.user object every endpoint returns. */
export function userView(user: User) {
  const now = Date.now();
  const banned = effectActive(user.banned, user.bannedUntil, now);
  const shadowbanned = effectActive(user.shadowBanned, user.shadowBannedUntil, now);
  const muted = effectActive(user.muted, user.mutedUntil, now);
  return {
    kind: 'app.user',
    userid: user.userId,
    handle: user.handle,
    handlelowercase: user.handleLower,
    displayname: user.displayName,
    pictureurl: user.pictureUrl,
    profileurl: user.profileUrl,
    role: user.role,
    customtags: user.customTags,
    banned,
    banexpires: banned ? isoOrNull(user.bannedUntil) : null,
    shadowbanned,
    shadowbanexpires: shadowbanned ? isoOrNull(user.shadowBannedUntil) : null,
    muted,
    muteexpires: muted ? isoOrNull(user.mutedUntil) : null,
    added: user.added.toISOString(),
    whenmodified: user.whenModified.toISOString(),
  };
}

export type UserView = ReturnType<typeof userView>;
