const made = new WeakMap<object, string>();

/**
 * The JSON of a view, made once however many outputs embed it: a chat event goes into the
 * command's answer, the live frame, the polling feed and webhook bodies. Views are never
 * changed once made (the project's rule), which is what makes reusing the text safe.
 */
export function jsonOnce(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  let json = made.get(value);
  if (json === undefined) {
    json = JSON.stringify(value);
    made.set(value, json);
  }
  return json;
}
