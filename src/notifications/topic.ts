import { mayActAs } from '../http/auth.js';
import { forbidden } from '../errors.js';
import { trustedBackend } from '../realtime/peer.js';
import type { TopicKindDef } from '../realtime/topics.js';

/** `user:{userid}`: the user's notifications, pushed as they are written. */
export const userTopic: TopicKindDef = {
  authorize(peer, userid) {
    if (peer.actor === null ? !trustedBackend(peer) : !mayActAs(peer.actor, userid)) throw forbidden('A user token may subscribe only to its own user topic.');
  },
  carries: { kind: 'user.notification' },
  doc: {
    events: ['notification'],
    who: 'a user token of that user, or of a moderator/admin; a connection without a user token may subscribe to any user',
  },
};
