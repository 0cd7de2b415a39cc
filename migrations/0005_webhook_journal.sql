-- Published events of apps with an enabled postpublish hook are journalled by triggers in the
-- transaction that publishes them (see webhook_journal in src/db/schema/webhooks.ts).
CREATE TABLE "webhook_journal" (
	"key" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"app_id" text NOT NULL,
	"added" timestamp with time zone DEFAULT now() NOT NULL,
	"claimed_until" timestamp with time zone
);
--> statement-breakpoint
CREATE FUNCTION webhook_hooked_app(app text) RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT EXISTS (SELECT 1 FROM webhooks w WHERE w.app_id = app AND w.enabled AND w.type = 'postpublish')
$$;
--> statement-breakpoint
-- A chat event in the feed that webhooks see (its type has a webhook event; shadowbanned ones never reach a hook).
CREATE FUNCTION webhook_chat_event_seen(event_type text, shadowban boolean) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT NOT shadowban AND event_type IN ('speech', 'quote', 'reply', 'reaction', 'action', 'enter', 'exit', 'roomopened', 'roomclosed', 'purge', 'custom')
$$;
--> statement-breakpoint
-- Rows that publish as they are inserted: chat events entering the feed, comments visible at once (commentpublished, commentreply), comment reactions.
CREATE FUNCTION webhook_journal_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'chat_events' THEN
    INSERT INTO webhook_journal (key, kind, app_id)
    SELECT n.id, 'chat', n.app_id FROM inserted n
    -- One look at the hooks per app in the statement (a batch is one room's), not one per row.
    WHERE n.app_id IN (SELECT a.app_id FROM (SELECT DISTINCT app_id FROM inserted) a WHERE webhook_hooked_app(a.app_id))
      AND n.seq IS NOT NULL AND webhook_chat_event_seen(n.event_type, n.shadowban)
    ON CONFLICT DO NOTHING;
  ELSIF TG_TABLE_NAME = 'comments' THEN
    INSERT INTO webhook_journal (key, kind, app_id)
    SELECT n.id, 'comment', n.app_id FROM inserted n WHERE n.moderation <> 'pending' AND webhook_hooked_app(n.app_id)
    ON CONFLICT DO NOTHING;
  ELSE
    INSERT INTO webhook_journal (key, kind, app_id)
    SELECT n.comment_id || ':' || n.user_id || ':' || n.type, 'commentreaction', c.app_id
    FROM inserted n JOIN comments c ON c.id = n.comment_id WHERE webhook_hooked_app(c.app_id)
    ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER chat_events_webhook_journal AFTER INSERT ON chat_events REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION webhook_journal_inserted();
--> statement-breakpoint
CREATE TRIGGER comments_webhook_journal AFTER INSERT ON comments REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION webhook_journal_inserted();
--> statement-breakpoint
CREATE TRIGGER comment_reactions_webhook_journal AFTER INSERT ON comment_reactions REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION webhook_journal_inserted();
--> statement-breakpoint
-- Rows that publish later: chat events entering the feed when approved or released after a delay, comments approved from pre-moderation.
CREATE FUNCTION webhook_journal_released() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'chat_events' THEN
    IF webhook_chat_event_seen(NEW.event_type, NEW.shadowban) AND webhook_hooked_app(NEW.app_id) THEN
      INSERT INTO webhook_journal (key, kind, app_id) VALUES (NEW.id, 'chat', NEW.app_id) ON CONFLICT DO NOTHING;
    END IF;
  ELSIF webhook_hooked_app(NEW.app_id) THEN
    INSERT INTO webhook_journal (key, kind, app_id) VALUES (NEW.id, 'comment', NEW.app_id) ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER chat_events_webhook_journal_released AFTER UPDATE OF seq ON chat_events FOR EACH ROW
  WHEN (OLD.seq IS NULL AND NEW.seq IS NOT NULL) EXECUTE FUNCTION webhook_journal_released();
--> statement-breakpoint
CREATE TRIGGER comments_webhook_journal_approved AFTER UPDATE OF moderation ON comments FOR EACH ROW
  WHEN (OLD.moderation = 'pending' AND NEW.moderation = 'approved') EXECUTE FUNCTION webhook_journal_released();
