-- Notifications are always read and changed as one user's (app, user, then id or item), so the
-- primary key leads with the user and replaces both the key on id alone and the user index: one
-- index fewer for every notification a crowd's likes insert (src/db/schema/notifications.ts).
ALTER TABLE "notifications" DROP CONSTRAINT "notifications_pkey";--> statement-breakpoint
DROP INDEX "notifications_user_idx";--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_app_id_user_id_id_pk" PRIMARY KEY("app_id","user_id","id");
