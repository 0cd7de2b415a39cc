import { seg } from './api.js';
import type { Ctx } from './context.js';

/** What a moderator can do to a user from a message, and how to undo each from the effects list. */
export type UserAction = 'ban' | 'mute' | 'shadowban' | 'bounce' | 'purge';

export const ACTION_LABELS: Record<UserAction, string> = {
  ban: 'Ban',
  mute: 'Mute',
  shadowban: 'Shadow ban',
  bounce: 'Bounce',
  purge: 'Purge messages',
};

/** Ban is the user's global ban; mute, shadow ban and bounce act in this room; purge removes their messages here. */
export function applyAction(ctx: Ctx, roomid: string, userid: string, action: UserAction, apply = true): Promise<unknown> {
  const room = `chat/rooms/${seg(roomid)}`;
  switch (action) {
    case 'ban':
      return ctx.api.post(`user/users/${seg(userid)}/ban`, { applyeffect: apply });
    case 'mute':
    case 'shadowban':
      return ctx.api.post(`${room}/${action}`, { userid, applyeffect: apply });
    case 'bounce':
      return ctx.api.post(`${room}/bounce`, { userid, bounce: apply });
    case 'purge':
      return ctx.api.post(`${room}/commands/purge`, { userid, byuserid: ctx.session.userid });
  }
}

/** Confirms a flagged user: the flag goes, the user stays shadow banned in the room. */
export function confirmFlag(ctx: Ctx, roomid: string, userid: string): Promise<unknown> {
  return ctx.api.post(`chat/rooms/${seg(roomid)}/moderation/flaggedusers/${seg(userid)}/applydecision`, { approve: true });
}

/** Lifts an entry of `usereffects`: room effects in the room, global ones on the user, a flag by clearing it. */
export function liftEffect(ctx: Ctx, roomid: string, userid: string, effecttype: string, scope: string): Promise<unknown> {
  if (effecttype === 'flag') return ctx.api.post(`chat/rooms/${seg(roomid)}/moderation/flaggedusers/${seg(userid)}/applydecision`, { approve: false });
  if (scope === 'global') return ctx.api.post(`user/users/${seg(userid)}/${seg(effecttype)}`, { applyeffect: false });
  return applyAction(ctx, roomid, userid, effecttype as UserAction, false);
}
