/**
 * Field names are matched case-insensitively (api-surface.md, Conventions): every key of a
 * request body or query is folded to lower case once, here, so schemas only know one spelling.
 */
export function foldKeys(value: unknown): unknown {
  return hasKeyToFold(value) ? fold(value) : value;
}

/** Most bodies are already lower case: checking costs no allocation, rebuilding does. */
function hasKeyToFold(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasKeyToFold);
  if (value === null || typeof value !== 'object') return false;
  for (const key in value) if (key !== key.toLowerCase() || hasKeyToFold((value as Record<string, unknown>)[key])) return true;
  return false;
}

function fold(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(fold);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) setOwn(out, key.toLowerCase(), fold(inner));
  return out;
}

/** A plain assignment of a `__proto__` key would replace the object's prototype: fields would then be inherited. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Query string to an object with folded keys; a repeated key becomes an array; an empty value counts as absent. */
export function parseQuery(raw: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  if (raw === '') return out;
  for (const [key, value] of new URLSearchParams(raw)) {
    if (value === '') continue;
    const folded = key.toLowerCase();
    const seen = Object.hasOwn(out, folded) ? out[folded] : undefined;
    if (seen === undefined) setOwn(out, folded, value);
    else if (Array.isArray(seen)) seen.push(value);
    else setOwn(out, folded, [seen, value]);
  }
  return out;
}
