import * as v from 'valibot';
import { RateLimited } from '../limits/rate-limited.js';

/** What one application may make telemetry hold (README, Telemetry limits; docs/limits.md). */
export interface TelemetryLimits {
  /** Live contexts per application; a context is forgotten two windows after its last operation. */
  contextsPerApp: number;
  /** Distinct signals (kind + key) per context. */
  keysPerContext: number;
  keyLength: number;
  contextIdLength: number;
  opsPerBatch: number;
}

const count = (max: number) => v.pipe(v.string(), v.regex(/^\d+$/, 'must be a whole number'), v.transform(Number), v.minValue(1, 'must be at least 1'), v.maxValue(max, `must be at most ${max}`));

/** The environment variables of the telemetry limits, with their defaults. */
export const TELEMETRY_LIMIT_ENV = {
  TELEMETRY_MAX_CONTEXTS: v.optional(count(1_000_000), '250'),
  TELEMETRY_MAX_KEYS: v.optional(count(10_000), '100'),
  // Identifiers are stored per signal and repeated in every snapshot: 250 is the most any id of the API allows.
  TELEMETRY_MAX_KEY_LENGTH: v.optional(count(250), '128'),
  TELEMETRY_MAX_CONTEXT_LENGTH: v.optional(count(250), '128'),
  TELEMETRY_MAX_BATCH_OPS: v.optional(count(10_000), '100'),
};

type Env = { [K in keyof typeof TELEMETRY_LIMIT_ENV]: v.InferOutput<(typeof TELEMETRY_LIMIT_ENV)[K]> };

export function telemetryLimits(e: Env): TelemetryLimits {
  return {
    contextsPerApp: e.TELEMETRY_MAX_CONTEXTS,
    keysPerContext: e.TELEMETRY_MAX_KEYS,
    keyLength: e.TELEMETRY_MAX_KEY_LENGTH,
    contextIdLength: e.TELEMETRY_MAX_CONTEXT_LENGTH,
    opsPerBatch: e.TELEMETRY_MAX_BATCH_OPS,
  };
}

/**
 * The answer to an operation on a new context while the application holds as many as it may:
 * 429, to retry once idle contexts have been forgotten (two windows after their last operation).
 */
export function tooManyContexts(max: number, windowSeconds: number): RateLimited {
  return new RateLimited(`Too many live telemetry contexts: the application already holds its ${max}.`, { points: max, seconds: 2 * windowSeconds }, windowSeconds * 1000);
}
