ALTER TABLE "polls" ALTER COLUMN "sort_choices" DROP DEFAULT;--> statement-breakpoint
ALTER TABLE "polls" ALTER COLUMN "sort_choices" SET DATA TYPE text USING (CASE WHEN "sort_choices" THEN 'position' ELSE 'none' END);--> statement-breakpoint
ALTER TABLE "polls" ALTER COLUMN "sort_choices" SET DEFAULT 'none';--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "reports" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "container_custom_id" text;--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "when_read" timestamp with time zone;