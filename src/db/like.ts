/** `s` as literal text inside a LIKE pattern: its `\`, `%` and `_` escaped. */
export const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** A LIKE pattern matching text that contains `s`. */
export const containing = (s: string) => `%${likeEscape(s)}%`;
