-- A room's events_revision moves with every statement that changes or deletes its events in place
-- (an edit, a deletion, a report, a moderator's decision, a reaction's new counts, a purge, a
-- reset). New events move last_seq instead. Together they tell a node whether a page of the room's
-- events it read earlier is still what a read would return now, whichever node made the change
-- (src/chat/feed/feed.ts, latestShared). One update of the room per statement, however many
-- events it changed.
ALTER TABLE "chat_rooms" ADD COLUMN "events_revision" bigint DEFAULT 0 NOT NULL;
--> statement-breakpoint
CREATE FUNCTION chat_rooms_events_revised() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE chat_rooms r SET events_revision = r.events_revision + 1 WHERE r.id IN (SELECT DISTINCT c.room_id FROM changed c);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER chat_events_revised_by_update AFTER UPDATE ON chat_events REFERENCING OLD TABLE AS changed
FOR EACH STATEMENT EXECUTE FUNCTION chat_rooms_events_revised();
--> statement-breakpoint
CREATE TRIGGER chat_events_revised_by_delete AFTER DELETE ON chat_events REFERENCING OLD TABLE AS changed
FOR EACH STATEMENT EXECUTE FUNCTION chat_rooms_events_revised();
