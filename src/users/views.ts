import { effectActive, type User } from './types.js';
import { isoOrNull } from '../iso.js';
import type { Shape } from '../realtime/compact/shapes.js';

/**
 * Views of user records, which are replaced, never changed in place: kept until the first of the
 * user's timed effects (ban, shadow ban, mute) expires, since that changes the view.
 */
const views = new WeakMap<User, { view: UserView; until: number }>();

/** The app.user object every endpoint returns. */
export function userView(user: User): UserView {
  const now = Date.now();
  const kept = views.get(user);
  if (kept !== undefined && now < kept.until) return kept.view;
  const view = buildUserView(user, now);
  views.set(user, { view, until: Math.min(...[user.bannedUntil, user.shadowBannedUntil, user.mutedUntil].map((d) => (d !== null && d.getTime() > now ? d.getTime() : Infinity))) });
  return view;
}

function buildUserView(user: User, now: number) {
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
    reports: user.reports,
    added: user.added.toISOString(),
    whenmodified: user.whenModified.toISOString(),
  };
}

export type UserView = ReturnType<typeof buildUserView>;

/** app.user in compact frames (docs/realtime.md): sent whole once per stream, then by reference while unchanged. */
export const USER_SHAPE: Shape = {
  identity: 'userid',
  fields: [
    ['userid', 'u'],
    ['handle', 'h'],
    ['handlelowercase', 'hl', 'lower', 'handle'],
    ['displayname', 'd', 'same', 'handle'],
    ['pictureurl', 'p', 'url'],
    ['profileurl', 'l', 'url'],
    ['role', 'r', 'eq', 'user'],
    ['customtags', 'tg', 'eq', []],
    ['banned', 'b', 'eq', false],
    ['banexpires', 'be', 'eq', null],
    ['shadowbanned', 'sb', 'eq', false],
    ['shadowbanexpires', 'se', 'eq', null],
    ['muted', 'm', 'eq', false],
    ['muteexpires', 'me', 'eq', null],
    ['reports', 'rp', 'eq', []],
    ['added', 'a', 'time'],
    ['whenmodified', 'w', 'same', 'added'],
  ],
};
