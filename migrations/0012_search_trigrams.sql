-- The searches (chat/searchevents by body, user/search, chat/rooms?filterbyname=) match
-- case-insensitive substrings and prefixes: trigram indexes (pg_trgm, a trusted extension that a
-- database owner may create; PGlite ships it and src/db/embedded.ts loads it) find them without
-- reading every row. The btree on lower(display_name) served no search (a substring cannot use it).
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
DROP INDEX "users_display_name_idx";--> statement-breakpoint
CREATE INDEX "users_handle_trgm_idx" ON "users" USING gin ("handle_lower" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "users_user_id_trgm_idx" ON "users" USING gin ("user_id" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "users_display_name_trgm_idx" ON "users" USING gin ("display_name" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "chat_events_body_trgm_idx" ON "chat_events" USING gin ("body" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "chat_rooms_name_trgm_idx" ON "chat_rooms" USING gin ("name" gin_trgm_ops);