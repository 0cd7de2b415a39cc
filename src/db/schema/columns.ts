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
