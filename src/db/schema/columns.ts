import { jsonb, text, timestamp } from 'drizzle-orm/pg-core';

/** A timestamptz read as a Date. */
export const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** The customer's own fields that events, conversations, comments and poll choices carry. */
export const customColumns = () => ({
  customType: text('custom_type').notNull().default(''),
  customId: text('custom_id'),
  customPayload: text('custom_payload').notNull().default(''),
  customField1: text('custom_field1').notNull().default(''),
  customField2: text('custom_field2').notNull().default(''),
  customTags: jsonb('custom_tags').$type<string[]>().notNull().default([]),
});

/**
 * For the GIN indexes of tables written rarely or in batches (rooms' names, users' names and
 * handles, the users that kept comment pages show): GIN keeps new entries in a pending list that
 * every search reads whole until it reaches gin_pending_list_limit (4 MB by default), and no
 * autovacuum empties it on the embedded database; a search for one room among 20,000 just created
 * read all of them (23 ms, against 1.3 ms among 50), and so did every update of a user among
 * 20,000 kept pages (3 ms). 128 kB keeps that read small; the chat events' index (written by every
 * post) keeps the default.
 */
export const SMALL_PENDING_LIST = { gin_pending_list_limit: 128 };
