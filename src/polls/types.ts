import type { pollChoices, pollLeads, pollResponses, polls } from '../db/schema/index.js';

export type Poll = typeof polls.$inferSelect;
export type NewPoll = typeof polls.$inferInsert;
export type Choice = typeof pollChoices.$inferSelect;
export type NewChoice = typeof pollChoices.$inferInsert;
export type PollResponse = typeof pollResponses.$inferSelect;
export type Lead = typeof pollLeads.$inferSelect;
