import type { pollChoices, pollLeads, pollResponses, polls } from '../db/schema/index.js';

export type Poll = typeof polls.$inferSelect;
export type NewPoll = typeof polls.$inferInsert;
export type Choice = typeof pollChoices.$inferSelect;
export type NewChoice = typeof pollChoices.$inferInsert;
export type PollResponse = typeof pollResponses.$inferSelect;
export type Lead = typeof pollLeads.$inferSelect;
export type NewLead = typeof pollLeads.$inferInsert;

/** A poll with its choices in position order. */
/** What a poll's standings are made of (findStandings). */
export interface PollStandingsRead {
  pollId: string;
  appId: string;
  choices: Pick<Choice, 'id' | 'title' | 'position' | 'responseCount'>[];
}

export interface PollWithChoices {
  poll: Poll;
  choices: Choice[];
}

export interface VotingState {
  /** choice id → poll id, for the polls locked. */
  choices: Map<string, string>;
  /** poll id → row version (xmin), read with the rest: every committed vote batch changes it. */
  versions: Map<string, string>;
  tallies: { pollId: string; userId: string; choiceId: string; n: number }[];
}
