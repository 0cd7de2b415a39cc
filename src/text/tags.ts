const HASHTAG = /(?:^|[^\p{L}\p{N}_&])#([\p{L}\p{N}_]+)/gu;
const MENTION = /(?:^|[^\p{L}\p{N}_@])@([A-Za-z0-9_]+)/gu;

const unique = (values: Iterable<string>) => [...new Set(values)];

/** `#tag` words, each once, in the order they first appear. */
export function extractHashtags(text: string): string[] {
  if (!text.includes('#')) return [];
  return unique(Array.from(text.matchAll(HASHTAG), (m) => `#${m[1]}`));
}

/** `@handle` words, each once; handles use the handle alphabet. */
export function extractMentions(text: string): string[] {
  if (!text.includes('@')) return [];
  return unique(Array.from(text.matchAll(MENTION), (m) => `@${m[1]}`));
}
