import * as v from 'valibot';
import { badRequest } from './errors.js';

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
  const fields = Object.keys(errors);
  throw badRequest(`Invalid ${what}: ${fields.map((f) => `${f} ${errors[f]}`).join('; ')}`, errors);
}
