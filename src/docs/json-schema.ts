import { toJsonSchema } from '@valibot/to-json-schema';
import type { AnySchema } from '../http/validation.js';

export type JsonSchema = Record<string, unknown>;

/**
 * A valibot schema as JSON Schema 2020-12 (OpenAPI 3.1 and AsyncAPI 3.0 both take it), as
 * clients send it: the input side, before transforms. What cannot be expressed (custom checks,
 * transforms) is left out; a schema that cannot be converted at all (or only as a recursive
 * one) becomes `{}`, which accepts anything, so that documenting never stops the server.
 */
export function jsonSchemaOf(schema: AnySchema): JsonSchema {
  try {
    const { $schema: _, ...converted } = toJsonSchema(schema, { target: 'draft-2020-12', typeMode: 'input', errorMode: 'ignore' }) as JsonSchema;
    // Recursive schemas refer to `#/$defs/…`, which inside a larger document points at its root.
    return converted['$defs'] === undefined ? converted : {};
  } catch {
    return {};
  }
}
