CREATE TABLE "api_tokens" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"app_id" text NOT NULL,
	"name" text NOT NULL,
	"permissions" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"added" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "applications" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"user_reports_limit" integer DEFAULT 0 NOT NULL,
	"use_organization_user_database" boolean DEFAULT false NOT NULL,
	"organization_id" text,
	"user_pool" text NOT NULL,
	"jwt_secret" text NOT NULL,
	"webhook_secret" text NOT NULL,
	"added" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "user_reports" (
	"id" text PRIMARY KEY NOT NULL,
	"pool" text NOT NULL,
	"user_id" text NOT NULL,
	"reported_by" text NOT NULL,
	"report_type" text NOT NULL,
	"added" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "users" (
	"pool" text NOT NULL,
	"user_id" text NOT NULL,
	"handle" text NOT NULL,
	"handle_lower" text NOT NULL,
	"display_name" text DEFAULT '' NOT NULL,
	"picture_url" text DEFAULT '' NOT NULL,
	"profile_url" text DEFAULT '' NOT NULL,
	"role" text DEFAULT 'user' NOT NULL,
	"custom_tags" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"banned" boolean DEFAULT false NOT NULL,
	"banned_until" timestamp with time zone,
	"shadow_banned" boolean DEFAULT false NOT NULL,
	"shadow_banned_until" timestamp with time zone,
	"muted" boolean DEFAULT false NOT NULL,
	"muted_until" timestamp with time zone,
	"added" timestamp with time zone DEFAULT now() NOT NULL,
	"when_modified" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "users_pool_user_id_pk" PRIMARY KEY("pool","user_id")
);
--> statement-breakpoint
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_app_id_applications_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."applications"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "api_tokens_app_idx" ON "api_tokens" USING btree ("app_id");--> statement-breakpoint
CREATE UNIQUE INDEX "user_reports_once_idx" ON "user_reports" USING btree ("pool","user_id","reported_by");--> statement-breakpoint
CREATE INDEX "user_reports_queue_idx" ON "user_reports" USING btree ("pool","added");--> statement-breakpoint
CREATE UNIQUE INDEX "users_handle_idx" ON "users" USING btree ("pool","handle_lower");--> statement-breakpoint
CREATE INDEX "users_display_name_idx" ON "users" USING btree ("pool",lower("display_name"));