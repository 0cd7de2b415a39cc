-- Every chat event written (a post, a like's reaction event) writes an entry in each index of
-- chat_events, and those writes are much of what an append costs the database (issue 57, item 3).
-- Two fewer per event:
-- - A user's events in a room (listing by author, deleting in a room) and in the whole app
--   (searchevents by user, the rooms of a global purge) are both found by user first: one index
--   (user_id, room_id, seq) serves both, where two were written.
-- - parent_id is null for every event that is no thread's reply, and a look-up by parent
--   (parent_id = …) never asks for null: those events keep no entry.
DROP INDEX "chat_events_app_user_idx";--> statement-breakpoint
DROP INDEX "chat_events_user_idx";--> statement-breakpoint
DROP INDEX "chat_events_parent_idx";--> statement-breakpoint
CREATE INDEX "chat_events_user_idx" ON "chat_events" USING btree ("user_id","room_id","seq");--> statement-breakpoint
CREATE INDEX "chat_events_parent_idx" ON "chat_events" USING btree ("parent_id") WHERE "chat_events"."parent_id" is not null;