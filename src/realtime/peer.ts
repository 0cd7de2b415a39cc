import type { Actor, TokenScope } from '../apps/types.js';

/** The other end of an authenticated socket, as areas see it: its application and credentials. */
export interface Peer {
  appId: string;
  actor: Actor | null;
  scope: TokenScope;
}

/** Acting for any user without a user token is the backend's, with a server token only. */
export const trustedBackend = (peer: Peer): boolean => peer.actor === null && peer.scope === 'server';
