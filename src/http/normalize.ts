/**
 * Field names are matched case-insensitively (api-surface.md, Conventions): every key of a
 * request body or query is folded to lower case once, here, so schemas only know one spelling.
 */
export function foldKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(foldKeys);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) out[key.toLowerCase()] = foldKeys(inner);
  return out;
}

/** Query string to an object with folded keys; a repeated key becomes an array. */
export function parseQuery(raw: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  if (raw === '') return out;
  for (const [key, value] of new URLSearchParams(raw)) {
    const folded = key.toLowerCase();
    const seen = out[folded];
    if (seen === undefined) out[folded] = value;
    else if (Array.isArray(seen)) seen.push(value);
    else out[folded] = [seen, value];
  }
  return out;
}
