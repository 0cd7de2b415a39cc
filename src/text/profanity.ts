import { RegExpMatcher, englishDataset, englishRecommendedTransformers, asteriskCensorStrategy, TextCensor } from 'obscenity';

const matcher = new RegExpMatcher({ ...englishDataset.build(), ...englishRecommendedTransformers });
const censor = new TextCensor().setStrategy(asteriskCensorStrategy());

/** Replaces each profane word with `*` characters of its length. */
export function maskProfanity(text: string): { text: string; censored: boolean } {
  const matches = matcher.getAllMatches(text, true);
  if (matches.length === 0) return { text, censored: false };
  return { text: censor.applyTo(text, matches), censored: true };
}

export function hasProfanity(text: string): boolean {
  return matcher.hasMatch(text);
}
