import {
  RegExpMatcher,
  TextCensor,
  asteriskCensorStrategy,
  collapseDuplicatesTransformer,
  englishDataset,
  englishRecommendedWhitelistMatcherTransformers,
  resolveConfusablesTransformer,
  toAsciiLowerCaseTransformer,
} from 'obscenity';

// The recommended set minus leet-speak resolution: it reads numbers as words ("455" as "ass"),
// and chat is full of scores and prices.
const matcher = new RegExpMatcher({
  ...englishDataset.build(),
  blacklistMatcherTransformers: [
    resolveConfusablesTransformer(),
    toAsciiLowerCaseTransformer(),
    collapseDuplicatesTransformer({
      defaultThreshold: 1,
      customThresholds: new Map([
        ['b', 2],
        ['e', 2],
        ['o', 2],
        ['l', 2],
        ['s', 2],
        ['g', 2],
      ]),
    }),
  ],
  whitelistMatcherTransformers: englishRecommendedWhitelistMatcherTransformers,
});
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
