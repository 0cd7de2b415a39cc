import { boolean, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

export const applications = pgTable('applications', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  userReportsLimit: integer('user_reports_limit').notNull().default(0),
  useOrganizationUserDatabase: boolean('use_organization_user_database').notNull().default(false),
  organizationId: text('organization_id'),
  /** Users live in a pool: the organization's when shared, else the application's own. */
  userPool: text('user_pool').notNull(),
  jwtSecret: text('jwt_secret').notNull(),
  webhookSecret: text('webhook_secret').notNull(),
  added: timestamp('added', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

export const apiTokens = pgTable(
  'api_tokens',
  {
    /** sha256 of the token: the token itself is shown once and never stored. */
    tokenHash: text('token_hash').primaryKey(),
    /** What listing and revocation name the token by. */
    id: text('id').notNull().unique(),
    /** `server`: a backend secret with full power; `client`: safe to ship, every write needs a user token. */
    scope: text('scope').$type<'server' | 'client'>().notNull().default('server'),
    appId: text('app_id')
      .notNull()
      .references(() => applications.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    permissions: jsonb('permissions').$type<string[]>().notNull().default([]),
    added: timestamp('added', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('api_tokens_app_idx').on(t.appId)],
);
