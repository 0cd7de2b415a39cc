import * as v from 'valibot';
import { badRequest } from '../errors.js';
import { unstorable } from './storable.js';

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
 * Postgres text cannot hold NUL, so a path parameter with one (%00) would fail its query as a
 * server error: every route refuses it here instead, naming the parameter.
 */
export function validatePathParams(params: Record<string, string>): void {
  let errors: Record<string, string> | undefined;
  for (const [name, value] of Object.entries(params)) {
    const reason = unstorable(value);
    if (reason !== undefined) (errors ??= {})[name] = reason;
  }
  if (errors !== undefined) throw invalid('path', errors);
}

function invalid(what: string, errors: Record<string, string>) {
  const fields = Object.keys(errors);
  return badRequest(`Invalid ${what}: ${fields.map((f) => `${f} ${errors[f]}`).join('; ')}`, errors);
}
