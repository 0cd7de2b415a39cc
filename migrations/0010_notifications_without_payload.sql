-- A notification no longer stores the chat event or comment it is about: the answers that list,
-- update or delete notifications build each payload from the item as it is now, one batched read
-- per kind (src/notifications/payloads.ts), and the live push carries the view made at publish.
-- Storing it cost every like of a crowd a few KB of JSON compressed into the row.
ALTER TABLE "notifications" DROP COLUMN "payload";
