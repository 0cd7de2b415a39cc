import * as v from 'valibot';
import { mayActAs } from '../http/auth.js';
import { badRequest, forbidden } from '../errors.js';
import type { FrameHandler } from '../realtime/client-frames.js';
import { trustedBackend } from '../realtime/peer.js';
import { frameText } from '../realtime/protocol.js';
import type { TelemetryLimits } from './limits.js';
import { ID_MAX } from './schemas.js';
import type { TelemetryService } from './service.js';

/** `{"type":"heartbeat","contextid","key","userid"?}`: the REST presence heartbeat over the socket. */
export const heartbeatFrame = (limits: TelemetryLimits) =>
  v.object({ type: v.literal('heartbeat'), contextid: frameText(limits.contextIdLength), key: frameText(limits.keyLength), userid: v.optional(frameText(ID_MAX)) });
type HeartbeatFrame = v.InferOutput<ReturnType<typeof heartbeatFrame>>;

/** The user defaults to the user token's; a client token needs one, and acts only as its user. */
export const heartbeatHandler =
  (telemetry: TelemetryService): FrameHandler<HeartbeatFrame> =>
  (peer, { contextid, key, userid: given }) => {
    const userid = given ?? peer.actor?.userid;
    if (userid === undefined) throw badRequest('userid is required without a user token.');
    if (peer.actor === null && !trustedBackend(peer)) throw forbidden('A client token needs a user token to send heartbeats.');
    if (!mayActAs(peer.actor, userid)) throw forbidden('The user token does not allow acting as another user.');
    return telemetry.record(peer.appId, contextid, userid, [{ kind: 'presence', key, amount: 1 }]);
  };
