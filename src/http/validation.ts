import * as v from 'valibot';
import { badRequest } from '../errors.js';
import { decodeComponent, ENCODING_REFUSED, unstorable } from './storable.js';

export type AnySchema = v.GenericSchema<unknown, unknown>;

/** Validates once and turns valibot issues into a 400 whose errors name each field and why. */
export function validate<S extends AnySchema>(schema: S, input: unknown, what: string): v.InferOutput<S> {
  const result = v.safeParse(schema, input, { abortPipeEarly: true });
  if (result.success) return result.output;
  const errors: Record<string, string> = {};
  for (const issue of result.issues) {
    const field = v.getDotPath(issue) ?? what;
    if (errors[field] !== undefined) continue;
    errors[field] = issue.input === undefined && issue.kind === 'schema' ? 'is required' : issue.message;
  }
  throw invalid(what, errors);
}

/**
 * The route's path parameters (ids, raw as the router matched them) decoded and checked, before
 * any reaches a store: escapes that do not decode (invalid or overlong UTF-8) and text Postgres
 * cannot hold (NUL, %00, which would fail its query as a server error) are refused, naming the
 * parameter. Query strings (parseQuery), bodies (normalizeBody) and WebSocket frames apply the
 * same two checks, so an id is refused the same way wherever it comes from.
 */
export function decodePathParams(raw: Record<string, string>): Record<string, string> {
  let errors: Record<string, string> | undefined;
  const params: Record<string, string> = {};
  for (const [name, segment] of Object.entries(raw)) {
    const value = decodeComponent(segment, false);
    const reason = value === undefined ? ENCODING_REFUSED : unstorable(value);
    if (reason !== undefined) (errors ??= {})[name] = reason;
    else params[name] = value as string;
  }
  if (errors !== undefined) throw invalid('path', errors);
  return params;
}

function invalid(what: string, errors: Record<string, string>) {
  const fields = Object.keys(errors);
  return badRequest(`Invalid ${what}: ${fields.map((f) => `${f} ${errors[f]}`).join('; ')}`, errors);
}
