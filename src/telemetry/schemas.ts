import * as v from 'valibot';
import { decimal, integer, requiredText } from '../http/fields.js';

export const ID_MAX = 250;
export const MAX_BATCH_OPS = 100;

const userid = requiredText(ID_MAX);
const by = v.optional(integer(-1_000_000, 1_000_000), 1);
const value = decimal(0, 1);

export const HeartbeatBody = v.object({ userid });
export const IncrementBody = v.object({ userid, by });
export const SampleBody = v.object({ userid, value });

export const BatchBody = v.object({
  userid,
  ops: v.pipe(v.array(v.unknown(), 'must be a list of operations'), v.minLength(1, 'must hold at least one operation'), v.maxLength(MAX_BATCH_OPS, `must hold at most ${MAX_BATCH_OPS} operations`)),
});

const key = requiredText(ID_MAX);
/** One operation of a batch, validated on its own so the others still apply. */
export const BatchOp = v.variant(
  'op',
  [v.object({ op: v.literal('heartbeat'), key }), v.object({ op: v.literal('increment'), key, by }), v.object({ op: v.literal('sample'), key, value })],
  'must be increment, sample or heartbeat',
);

/** Path parameters (already URL-decoded by the router). */
export const PathIds = v.object({ contextid: requiredText(ID_MAX), key: v.optional(requiredText(ID_MAX)) });
