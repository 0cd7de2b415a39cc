-- The trigram indexes of rarely written tables keep a small pending list (see SMALL_PENDING_LIST in
-- src/db/schema/columns.ts): every search reads the list whole. Set in place rather than rebuilt
-- (what drizzle-kit wrote: DROP and CREATE), so a store with many users migrates at once; the
-- lists already there are merged into the indexes now.
ALTER INDEX "users_handle_trgm_idx" SET (gin_pending_list_limit = 128);--> statement-breakpoint
ALTER INDEX "users_user_id_trgm_idx" SET (gin_pending_list_limit = 128);--> statement-breakpoint
ALTER INDEX "users_display_name_trgm_idx" SET (gin_pending_list_limit = 128);--> statement-breakpoint
ALTER INDEX "chat_rooms_name_trgm_idx" SET (gin_pending_list_limit = 128);--> statement-breakpoint
SELECT gin_clean_pending_list(i::regclass) FROM unnest(ARRAY['users_handle_trgm_idx', 'users_user_id_trgm_idx', 'users_display_name_trgm_idx', 'chat_rooms_name_trgm_idx']) AS i;
