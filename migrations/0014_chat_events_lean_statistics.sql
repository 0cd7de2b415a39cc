-- ANALYZE holds the embedded database's one thread (and so the whole server) while it samples a
-- table: chat_events is analysed each time it doubles, during the crowd that doubled it. Its
-- columns that no statement filters, sorts or joins on keep no statistics (a target of 0): the
-- planner never asks for them, and computing them (text and jsonb values sorted and compared)
-- took a third to a half of the time ANALYZE spent on the table. See docs/storage.md.
ALTER TABLE "chat_events"
  ALTER COLUMN "original_body" SET STATISTICS 0,
  ALTER COLUMN "custom_type" SET STATISTICS 0,
  ALTER COLUMN "custom_id" SET STATISTICS 0,
  ALTER COLUMN "custom_payload" SET STATISTICS 0,
  ALTER COLUMN "custom_field1" SET STATISTICS 0,
  ALTER COLUMN "custom_field2" SET STATISTICS 0,
  ALTER COLUMN "custom_tags" SET STATISTICS 0,
  ALTER COLUMN "reply_to_id" SET STATISTICS 0,
  ALTER COLUMN "hierarchy" SET STATISTICS 0,
  ALTER COLUMN "hashtags" SET STATISTICS 0,
  ALTER COLUMN "reactions" SET STATISTICS 0,
  ALTER COLUMN "like_count" SET STATISTICS 0,
  ALTER COLUMN "reply_count" SET STATISTICS 0,
  ALTER COLUMN "reports" SET STATISTICS 0,
  ALTER COLUMN "muted_by" SET STATISTICS 0,
  ALTER COLUMN "edited" SET STATISTICS 0,
  ALTER COLUMN "added" SET STATISTICS 0,
  ALTER COLUMN "when_modified" SET STATISTICS 0;
