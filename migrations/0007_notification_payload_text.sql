-- A notification's payload is stored as the JSON text made for its push, never parsed by the
-- database (src/notifications/insert.ts); existing rows keep their payload as jsonb writes it.
ALTER TABLE "notifications" ALTER COLUMN "payload" SET DATA TYPE text USING "payload"::text;
