-- A chat event's reactions go with it by a statement trigger rather than the foreign key, whose
-- check cost every like a query of its own (select ... for key share of the event) although the
-- likes' statement already holds its targets locked for update: every writer of chat_reactions
-- inserts only for targets it holds locked (src/chat/store/reactions.ts). The trigger deletes the
-- reactions of all the events a statement deleted (one event, a user's purge, a room's reset or
-- deletion) in one statement, where the cascade ran one per event.
CREATE FUNCTION chat_reactions_of_deleted_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM chat_reactions r USING gone g WHERE r.event_id = g.id;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER chat_events_reactions_deleted AFTER DELETE ON chat_events REFERENCING OLD TABLE AS gone
FOR EACH STATEMENT EXECUTE FUNCTION chat_reactions_of_deleted_events();
--> statement-breakpoint
ALTER TABLE "chat_reactions" DROP CONSTRAINT "chat_reactions_event_id_chat_events_id_fk";
