import type { UserView } from '../../users/views.js';
import type { EventView, RoomView } from '../context.js';

export interface BounceResult {
  kind: 'chat.bounceuser';
  event: EventView | null;
  room: RoomView;
}

export interface RoomUserEffectView {
  kind: 'chat.roomusereffect';
  userid: string;
  user: UserView | null;
  /** ban, mute, shadowban (room or global), bounce, flag (room). */
  effecttype: string;
  scope: 'room' | 'global';
  expires: string | null;
  /** When a room effect was set; null for global effects. */
  added: string | null;
}
