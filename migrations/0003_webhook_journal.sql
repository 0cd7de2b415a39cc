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
-- Chat events entering the feed as they are inserted (the types webhooks see; shadowbanned ones never reach a hook).
CREATE FUNCTION webhook_journal_chat_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO webhook_journal (key, kind, app_id)
  SELECT n.id, 'chat', n.app_id FROM inserted n
  WHERE n.seq IS NOT NULL AND NOT n.shadowban
    AND n.event_type IN ('speech', 'quote', 'reply', 'reaction', 'action', 'enter', 'exit', 'roomopened', 'roomclosed', 'purge', 'custom')
    AND webhook_hooked_app(n.app_id)
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER chat_events_webhook_journal AFTER INSERT ON chat_events REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION webhook_journal_chat_inserted();
--> statement-breakpoint
-- Chat events entering the feed later (approved from pre-moderation, released after a delay).
CREATE FUNCTION webhook_journal_chat_released() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT NEW.shadowban
    AND NEW.event_type IN ('speech', 'quote', 'reply', 'reaction', 'action', 'enter', 'exit', 'roomopened', 'roomclosed', 'purge', 'custom')
    AND webhook_hooked_app(NEW.app_id) THEN
    INSERT INTO webhook_journal (key, kind, app_id) VALUES (NEW.id, 'chat', NEW.app_id) ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER chat_events_webhook_journal_released AFTER UPDATE OF seq ON chat_events FOR EACH ROW
  WHEN (OLD.seq IS NULL AND NEW.seq IS NOT NULL) EXECUTE FUNCTION webhook_journal_chat_released();
--> statement-breakpoint
-- Comments visible as they are inserted (commentpublished, commentreply).
CREATE FUNCTION webhook_journal_comment_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO webhook_journal (key, kind, app_id)
  SELECT n.id, 'comment', n.app_id FROM inserted n WHERE n.moderation <> 'pending' AND webhook_hooked_app(n.app_id)
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER comments_webhook_journal AFTER INSERT ON comments REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION webhook_journal_comment_inserted();
--> statement-breakpoint
-- Comments held by pre-moderation, published when approved.
CREATE FUNCTION webhook_journal_comment_approved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF webhook_hooked_app(NEW.app_id) THEN
    INSERT INTO webhook_journal (key, kind, app_id) VALUES (NEW.id, 'comment', NEW.app_id) ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER comments_webhook_journal_approved AFTER UPDATE OF moderation ON comments FOR EACH ROW
  WHEN (OLD.moderation = 'pending' AND NEW.moderation = 'approved') EXECUTE FUNCTION webhook_journal_comment_approved();
--> statement-breakpoint
-- Reactions added to comments (commentreaction).
CREATE FUNCTION webhook_journal_comment_reacted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO webhook_journal (key, kind, app_id)
  SELECT n.comment_id || ':' || n.user_id || ':' || n.type, 'commentreaction', c.app_id
  FROM inserted n JOIN comments c ON c.id = n.comment_id
  WHERE webhook_hooked_app(c.app_id)
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER comment_reactions_webhook_journal AFTER INSERT ON comment_reactions REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION webhook_journal_comment_reacted();
