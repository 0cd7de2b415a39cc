-- Chat events entering the feed as they are inserted are journalled by the inserting statement
-- itself (src/chat/store/insert-events.ts), which looks at the hooks once and writes nothing for
-- an application without an enabled postpublish hook: the statement trigger's transition table
-- and function call cost every chat post, hooked or not.
DROP TRIGGER chat_events_webhook_journal ON chat_events;
--> statement-breakpoint
-- Rows that publish as they are inserted: comments visible at once (commentpublished, commentreply), comment reactions.
CREATE OR REPLACE FUNCTION webhook_journal_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'comments' THEN
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
