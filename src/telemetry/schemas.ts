import * as v from 'valibot';
import { decimal, integer, requiredText } from '../http/fields.js';
import type { TelemetryLimits } from './limits.js';

export const ID_MAX = 250;

const userid = requiredText(ID_MAX);
const by = v.optional(integer(-1_000_000, 1_000_000), 1);
const value = decimal(0, 1);

/** The request schemas, with the identifier lengths and batch size the limits allow. */
export function telemetrySchemas(limits: TelemetryLimits) {
  const key = requiredText(limits.keyLength);
  return {
    HeartbeatBody: v.object({ userid }),
    IncrementBody: v.object({ userid, by }),
    SampleBody: v.object({ userid, value }),
    BatchBody: v.object({
      userid,
      ops: v.pipe(
        v.array(v.unknown(), 'must be a list of operations'),
        v.minLength(1, 'must hold at least one operation'),
        v.maxLength(limits.opsPerBatch, `must hold at most ${limits.opsPerBatch} operations`),
      ),
    }),
    /** One operation of a batch, validated on its own so the others still apply. */
    BatchOp: v.variant(
      'op',
      [v.object({ op: v.literal('heartbeat'), key }), v.object({ op: v.literal('increment'), key, by }), v.object({ op: v.literal('sample'), key, value })],
      'must be increment, sample or heartbeat',
    ),
    /** Path parameters (already URL-decoded by the router). */
    PathIds: v.object({ contextid: requiredText(limits.contextIdLength), key: v.optional(key) }),
  };
}
