-- A kept first page of comments (migration 0015) is dropped when a user it shows changes, rather
-- than checked against each shown user on every read: a read of a kept page then looks up its
-- conversation and the page, whatever the number of users it shows (issue 57: on a grown store each
-- of those lookups is a page the database reads from disk).
-- - An update or a deletion of users drops, in its own transaction, the pages that show them
--   (the index on user_ids finds them; its pending list kept small, as the trigram indexes' are:
--   every search reads the list whole, and no autovacuum empties it on the embedded database).
--   A page kept meanwhile is kept only if each user it shows is still as it was made, checked
--   with the user locked (src/comments/store/renderings.ts): an update waiting on that lock
--   drops it after.
-- - A page keeps the users it shows as not there (absent_user_ids), checked on each read: a user
--   created since ends it.
-- The pages kept until now named their users the old way: they are dropped, and made again.
TRUNCATE "comment_page_renderings";--> statement-breakpoint
ALTER TABLE "comment_page_renderings" DROP COLUMN "user_modified";--> statement-breakpoint
ALTER TABLE "comment_page_renderings" ADD COLUMN "absent_user_ids" text[] NOT NULL;--> statement-breakpoint
CREATE INDEX "comment_page_renderings_user_ids_idx" ON "comment_page_renderings" USING gin ("user_ids") WITH (gin_pending_list_limit=128);--> statement-breakpoint
CREATE FUNCTION comment_page_renderings_users_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM comment_page_renderings p
  WHERE p.user_ids && (SELECT array_agg(c.user_id) FROM changed c)
    AND EXISTS (SELECT 1 FROM changed c WHERE c.pool = p.user_pool AND c.user_id = ANY (p.user_ids));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER users_updated_pages_dropped AFTER UPDATE ON users
REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION comment_page_renderings_users_changed();
--> statement-breakpoint
CREATE TRIGGER users_deleted_pages_dropped AFTER DELETE ON users
REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION comment_page_renderings_users_changed();
