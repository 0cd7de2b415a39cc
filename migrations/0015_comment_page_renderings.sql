-- First pages of comments kept in the database (src/comments/services/stored-pages.ts), so that a
-- conversation nobody read recently is answered with one indexed read. A kept page names what it
-- was made from: its conversation's revision and the when_modified of each user it shows.
-- - A conversation's revision moves with every committed change of its row (the row trigger),
--   so with every new comment too: the insert's transaction adds it to the comment count. A
--   change of comments in place (an edit, a deletion, a like, a vote, a report, a moderator's
--   decision) moves it once per transaction, at commit (a deferred trigger that skips a row this
--   transaction already changed): the conversation is locked after the comments, the order
--   every change of comments takes its locks in (src/comments/services/comment-writer.ts).
-- - A user's when_modified is set by every update of the user; the trigger makes it move even
--   when two updates come in the same millisecond or from a node whose clock is behind.
-- The table is unlogged: its writes skip the write-ahead log, and a crash empties it (the pages
-- are made again by the reads that miss them).
CREATE UNLOGGED TABLE "comment_page_renderings" (
	"conversation_key" text NOT NULL,
	"variant" text NOT NULL,
	"conversation_revision" bigint NOT NULL,
	"user_pool" text NOT NULL,
	"user_ids" text[] NOT NULL,
	"user_modified" bigint[] NOT NULL,
	"expires_at" timestamp (3) with time zone,
	"page" bytea NOT NULL,
	CONSTRAINT "comment_page_renderings_conversation_key_variant_pk" PRIMARY KEY("conversation_key","variant")
);
--> statement-breakpoint
ALTER TABLE "comment_conversations" ADD COLUMN "revision" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "comment_page_renderings" ADD CONSTRAINT "comment_page_renderings_conversation_key_comment_conversations_key_fk" FOREIGN KEY ("conversation_key") REFERENCES "public"."comment_conversations"("key") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE FUNCTION revision_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.revision := OLD.revision + 1;
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER comment_conversations_revised BEFORE UPDATE ON comment_conversations
FOR EACH ROW EXECUTE FUNCTION revision_moved();
--> statement-breakpoint
CREATE FUNCTION comment_conversations_comments_revised() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE comment_conversations c SET revision = c.revision + 1 WHERE c.key = OLD.conversation_key AND c.xmin <> pg_current_xact_id()::xid;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER comments_revised AFTER UPDATE OR DELETE ON comments DEFERRABLE INITIALLY DEFERRED
FOR EACH ROW EXECUTE FUNCTION comment_conversations_comments_revised();
--> statement-breakpoint
CREATE FUNCTION users_modified_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.when_modified := greatest(NEW.when_modified, date_trunc('milliseconds', OLD.when_modified) + interval '1 millisecond');
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER users_modified_moved BEFORE UPDATE ON users
FOR EACH ROW EXECUTE FUNCTION users_modified_moved();
