import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { customColumns, ts } from './columns.js';

export const polls = pgTable(
  'polls',
  {
    id: text('id').primaryKey(),
    appId: text('app_id').notNull(),
    customId: text('custom_id'),
    ownerId: text('owner_id'),
    title: text('title').notNull().default(''),
    subtitle: text('subtitle').notNull().default(''),
    description: text('description').notNull().default(''),
    pictureUrl: text('picture_url').notNull().default(''),
    customType: text('custom_type').notNull().default(''),
    customPayload: text('custom_payload').notNull().default(''),
    customField1: text('custom_field1').notNull().default(''),
    customField2: text('custom_field2').notNull().default(''),
    customTags: jsonb('custom_tags').$type<string[]>().notNull().default([]),
    allowMultipleChoicesPerUser: boolean('allow_multiple_choices_per_user').notNull().default(false),
    /** 0 means no limit. */
    maxTotalResponsesPerUser: integer('max_total_responses_per_user').notNull().default(1),
    /** 0 means no limit. */
    maxResponsesPerChoicePerUser: integer('max_responses_per_choice_per_user').notNull().default(1),
    whenPollOpens: ts('when_poll_opens'),
    whenPollCloses: ts('when_poll_closes'),
    whenPollExpires: ts('when_poll_expires'),
    status: text('status').notNull().default('published'),
    displayResults: boolean('display_results').notNull().default(true),
    /** How clients order the choices: none, random, position, ... (as the SDKs send it). */
    sortChoices: text('sort_choices').notNull().default('none'),
    /** Kept exact in the transaction that inserts responses, under this row's lock. */
    totalResponses: integer('total_responses').notNull().default(0),
    added: ts('added').notNull().defaultNow(),
    whenModified: ts('when_modified').notNull().defaultNow(),
  },
  (t) => [uniqueIndex('polls_custom_id_idx').on(t.appId, t.customId).where(sql`${t.customId} is not null`), index('polls_app_idx').on(t.appId, t.id)],
);

export const pollChoices = pgTable(
  'poll_choices',
  {
    id: text('id').primaryKey(),
    pollId: text('poll_id')
      .notNull()
      .references(() => polls.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    title: text('title').notNull().default(''),
    subtitle: text('subtitle').notNull().default(''),
    imageUrl: text('image_url').notNull().default(''),
    videoId: text('video_id').notNull().default(''),
    embedCode: text('embed_code').notNull().default(''),
    ...customColumns(),
    /** Kept exact with the poll's totalResponses. */
    responseCount: integer('response_count').notNull().default(0),
    added: ts('added').notNull().defaultNow(),
  },
  (t) => [index('poll_choices_poll_idx').on(t.pollId, t.position)],
);

/**
 * The hot table: no foreign keys (a per-row RI check would double the cost of a vote batch);
 * PollService removes a poll's or a choice's responses itself, under the poll's lock.
 */
export const pollResponses = pgTable(
  'poll_responses',
  {
    id: text('id').notNull(),
    pollId: text('poll_id').notNull(),
    choiceId: text('choice_id').notNull(),
    userId: text('user_id').notNull(),
    added: ts('added').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.pollId, t.id] }), index('poll_responses_user_idx').on(t.pollId, t.userId)],
);

export const pollLeads = pgTable(
  'poll_leads',
  {
    id: text('id').primaryKey(),
    pollId: text('poll_id')
      .notNull()
      .references(() => polls.id, { onDelete: 'cascade' }),
    userId: text('user_id'),
    firstName: text('first_name').notNull().default(''),
    lastName: text('last_name').notNull().default(''),
    email: text('email').notNull(),
    phone: text('phone').notNull().default(''),
    customPayload: text('custom_payload').notNull().default(''),
    added: ts('added').notNull().defaultNow(),
  },
  (t) => [index('poll_leads_poll_idx').on(t.pollId, t.id)],
);
