import { randomUUID } from 'node:crypto';

const made = new WeakMap<object, string>();
/** Views one of whose fields holds a view shared with other views: that field's JSON is spliced in. */
const sharing = new WeakMap<object, string>();
/** Stands in for a shared field while the rest is serialised: no client can make JSON.stringify write it (a NUL and a random id). */
const STAND_IN = `\u0000${randomUUID()}`;
const STAND_IN_JSON = JSON.stringify(STAND_IN);

/**
 * The JSON of a view, made once however many outputs embed it: a chat event goes into the
 * command's answer, the live frame, the polling feed and webhook bodies. Views are never
 * changed once made (the project's rule), which is what makes reusing the text safe.
 */
export function jsonOnce(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  let json = made.get(value);
  if (json === undefined) {
    const key = sharing.get(value);
    json = key === undefined ? JSON.stringify(value) : spliced(value as Record<string, unknown>, key);
    made.set(value, json);
  }
  return json;
}

/**
 * `view`'s field `key` holds a view shared with other views (the liked event in the replyto of
 * each like of a batch, an event in the payload of its notification): its JSON is made once and
 * spliced into theirs rather than serialised again inside each.
 */
export function sharesView(view: object, key: string): void {
  sharing.set(view, key);
}

function spliced(view: Record<string, unknown>, key: string): string {
  const shared = view[key];
  return JSON.stringify({ ...view, [key]: STAND_IN }).replace(STAND_IN_JSON, () => jsonOnce(shared));
}
