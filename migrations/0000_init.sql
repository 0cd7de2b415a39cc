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
CREATE TABLE "chat_event_reports" (
	"app_id" text NOT NULL,
	"event_id" text NOT NULL,
	"user_id" text NOT NULL,
	"report_type" text NOT NULL,
	"added" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "chat_event_reports_event_id_user_id_pk" PRIMARY KEY("event_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "chat_room_user_reports" (
	"id" text PRIMARY KEY NOT NULL,
	"app_id" text NOT NULL,
	"room_id" text NOT NULL,
	"user_id" text NOT NULL,
	"reported_by" text NOT NULL,
	"report_type" text NOT NULL,
	"added" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "poll_choices" (
	"id" text PRIMARY KEY NOT NULL,
	"poll_id" text NOT NULL,
	"position" integer NOT NULL,
	"title" text DEFAULT '' NOT NULL,
	"subtitle" text DEFAULT '' NOT NULL,
	"image_url" text DEFAULT '' NOT NULL,
	"video_id" text DEFAULT '' NOT NULL,
	"embed_code" text DEFAULT '' NOT NULL,
	"custom_type" text DEFAULT '' NOT NULL,
	"custom_id" text,
	"custom_payload" text DEFAULT '' NOT NULL,
	"custom_field1" text DEFAULT '' NOT NULL,
	"custom_field2" text DEFAULT '' NOT NULL,
	"custom_tags" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"response_count" integer DEFAULT 0 NOT NULL,
	"added" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "poll_leads" (
	"id" text PRIMARY KEY NOT NULL,
	"poll_id" text NOT NULL,
	"user_id" text,
	"first_name" text DEFAULT '' NOT NULL,
	"last_name" text DEFAULT '' NOT NULL,
	"email" text NOT NULL,
	"phone" text DEFAULT '' NOT NULL,
	"custom_payload" text DEFAULT '' NOT NULL,
	"added" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "poll_responses" (
	"id" text NOT NULL,
	"poll_id" text NOT NULL,
	"choice_id" text NOT NULL,
	"user_id" text NOT NULL,
	"added" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "poll_responses_poll_id_id_pk" PRIMARY KEY("poll_id","id")
);
--> statement-breakpoint
CREATE TABLE "polls" (
	"id" text PRIMARY KEY NOT NULL,
	"app_id" text NOT NULL,
	"custom_id" text,
	"owner_id" text,
	"title" text DEFAULT '' NOT NULL,
	"subtitle" text DEFAULT '' NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"picture_url" text DEFAULT '' NOT NULL,
	"custom_type" text DEFAULT '' NOT NULL,
	"custom_payload" text DEFAULT '' NOT NULL,
	"custom_field1" text DEFAULT '' NOT NULL,
	"custom_field2" text DEFAULT '' NOT NULL,
	"custom_tags" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"allow_multiple_choices_per_user" boolean DEFAULT false NOT NULL,
	"max_total_responses_per_user" integer DEFAULT 1 NOT NULL,
	"max_responses_per_choice_per_user" integer DEFAULT 1 NOT NULL,
	"when_poll_opens" timestamp with time zone,
	"when_poll_closes" timestamp with time zone,
	"when_poll_expires" timestamp with time zone,
	"status" text DEFAULT 'published' NOT NULL,
	"display_results" boolean DEFAULT true NOT NULL,
	"sort_choices" boolean DEFAULT false NOT NULL,
	"total_responses" integer DEFAULT 0 NOT NULL,
	"added" timestamp with time zone DEFAULT now() NOT NULL,
	"when_modified" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_log" (
	"id" text PRIMARY KEY NOT NULL,
	"webhook_id" text NOT NULL,
	"message_id" text NOT NULL,
	"event_type" text NOT NULL,
	"status_code" integer NOT NULL,
	"elapsed_ms" integer NOT NULL,
	"completed" boolean NOT NULL,
	"attempt" integer NOT NULL,
	"error" text DEFAULT '' NOT NULL,
	"added" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_messages" (
	"id" text PRIMARY KEY NOT NULL,
	"webhook_id" text NOT NULL,
	"app_id" text NOT NULL,
	"event_type" text NOT NULL,
	"body" text NOT NULL,
	"added" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_outbox" (
	"id" text PRIMARY KEY NOT NULL,
	"webhook_id" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"locked_until" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "webhooks" (
	"id" text PRIMARY KEY NOT NULL,
	"app_id" text NOT NULL,
	"label" text NOT NULL,
	"url" text NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"type" text NOT NULL,
	"events" jsonb NOT NULL,
	"required_custom_tags" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"entities" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"consecutive_failures" integer DEFAULT 0 NOT NULL,
	"added" timestamp with time zone DEFAULT now() NOT NULL,
	"when_modified" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notifications" (
	"id" text PRIMARY KEY NOT NULL,
	"app_id" text NOT NULL,
	"user_id" text NOT NULL,
	"type" text NOT NULL,
	"event_type" text NOT NULL,
	"entity" text NOT NULL,
	"container_id" text NOT NULL,
	"item_id" text NOT NULL,
	"from_user_id" text NOT NULL,
	"payload" jsonb NOT NULL,
	"read" boolean DEFAULT false NOT NULL,
	"added" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "chat_events" (
	"id" text PRIMARY KEY NOT NULL,
	"app_id" text NOT NULL,
	"room_id" text NOT NULL,
	"seq" bigint,
	"event_type" text NOT NULL,
	"user_id" text,
	"body" text DEFAULT '' NOT NULL,
	"original_body" text DEFAULT '' NOT NULL,
	"custom_type" text DEFAULT '' NOT NULL,
	"custom_id" text,
	"custom_payload" text DEFAULT '' NOT NULL,
	"custom_field1" text DEFAULT '' NOT NULL,
	"custom_field2" text DEFAULT '' NOT NULL,
	"custom_tags" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"reply_to_id" text,
	"parent_id" text,
	"hierarchy" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"hashtags" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"reactions" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"like_count" integer DEFAULT 0 NOT NULL,
	"reply_count" integer DEFAULT 0 NOT NULL,
	"reports" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"report_count" integer DEFAULT 0 NOT NULL,
	"muted_by" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"edited" boolean DEFAULT false NOT NULL,
	"deleted" boolean DEFAULT false NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"shadowban" boolean DEFAULT false NOT NULL,
	"moderation" text DEFAULT 'na' NOT NULL,
	"release_at" timestamp with time zone,
	"ts" bigint NOT NULL,
	"added" timestamp with time zone DEFAULT now() NOT NULL,
	"when_modified" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "chat_participants" (
	"room_id" text NOT NULL,
	"user_id" text NOT NULL,
	"app_id" text NOT NULL,
	"added" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "chat_participants_room_id_user_id_pk" PRIMARY KEY("room_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "chat_room_effects" (
	"room_id" text NOT NULL,
	"user_id" text NOT NULL,
	"effect" text NOT NULL,
	"app_id" text NOT NULL,
	"expires" timestamp with time zone,
	"reason" text DEFAULT '' NOT NULL,
	"by_user_id" text,
	"added" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "chat_room_effects_room_id_user_id_effect_pk" PRIMARY KEY("room_id","user_id","effect")
);
--> statement-breakpoint
CREATE TABLE "chat_room_permissions" (
	"room_id" text NOT NULL,
	"user_id" text NOT NULL,
	"app_id" text NOT NULL,
	"allow" boolean NOT NULL,
	"added" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "chat_room_permissions_room_id_user_id_pk" PRIMARY KEY("room_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "chat_rooms" (
	"id" text PRIMARY KEY NOT NULL,
	"app_id" text NOT NULL,
	"custom_id" text,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"picture_url" text DEFAULT '' NOT NULL,
	"owner_id" text,
	"custom_type" text DEFAULT '' NOT NULL,
	"custom_payload" text DEFAULT '' NOT NULL,
	"custom_tags" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"custom_field1" text DEFAULT '' NOT NULL,
	"custom_field2" text DEFAULT '' NOT NULL,
	"enable_actions" boolean DEFAULT true NOT NULL,
	"enable_enter_and_exit" boolean DEFAULT true NOT NULL,
	"enable_profanity_filter" boolean DEFAULT true NOT NULL,
	"enable_auto_expire_sessions" boolean DEFAULT true NOT NULL,
	"open" boolean DEFAULT true NOT NULL,
	"private" boolean DEFAULT false NOT NULL,
	"moderation" text DEFAULT 'post' NOT NULL,
	"max_reports" integer DEFAULT 3 NOT NULL,
	"delay_message_seconds" integer DEFAULT 0 NOT NULL,
	"in_room" integer DEFAULT 0 NOT NULL,
	"last_seq" bigint DEFAULT 0 NOT NULL,
	"last_message_at" timestamp with time zone,
	"added" timestamp with time zone DEFAULT now() NOT NULL,
	"when_modified" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "chat_subscriptions" (
	"id" text NOT NULL,
	"room_id" text NOT NULL,
	"user_id" text NOT NULL,
	"app_id" text NOT NULL,
	"persist" boolean DEFAULT true NOT NULL,
	"added" timestamp with time zone DEFAULT now() NOT NULL,
	"updated" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "chat_subscriptions_room_id_user_id_pk" PRIMARY KEY("room_id","user_id"),
	CONSTRAINT "chat_subscriptions_id_unique" UNIQUE("id")
);
--> statement-breakpoint
CREATE TABLE "comment_conversation_reactions" (
	"conversation_key" text NOT NULL,
	"user_id" text NOT NULL,
	"type" text NOT NULL,
	"added" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "comment_conversation_reactions_conversation_key_type_user_id_pk" PRIMARY KEY("conversation_key","type","user_id")
);
--> statement-breakpoint
CREATE TABLE "comment_conversations" (
	"key" text PRIMARY KEY NOT NULL,
	"app_id" text NOT NULL,
	"conversation_id" text NOT NULL,
	"owner_user_id" text,
	"property" text NOT NULL,
	"moderation" text NOT NULL,
	"max_reports" integer DEFAULT 3 NOT NULL,
	"enable_profanity_filter" boolean DEFAULT true NOT NULL,
	"profanity_filter_mode" text DEFAULT 'mask' NOT NULL,
	"title" text DEFAULT '' NOT NULL,
	"max_comment_len" integer DEFAULT 256 NOT NULL,
	"comment_count" integer DEFAULT 0 NOT NULL,
	"open" boolean DEFAULT true NOT NULL,
	"custom_type" text DEFAULT '' NOT NULL,
	"custom_id" text,
	"custom_payload" text DEFAULT '' NOT NULL,
	"custom_field1" text DEFAULT '' NOT NULL,
	"custom_field2" text DEFAULT '' NOT NULL,
	"custom_tags" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"reactions" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"like_count" integer DEFAULT 0 NOT NULL,
	"added" timestamp (3) with time zone NOT NULL,
	"when_modified" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "comment_reactions" (
	"comment_id" text NOT NULL,
	"user_id" text NOT NULL,
	"type" text NOT NULL,
	"added" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "comment_reactions_comment_id_type_user_id_pk" PRIMARY KEY("comment_id","type","user_id")
);
--> statement-breakpoint
CREATE TABLE "comment_reports" (
	"comment_id" text NOT NULL,
	"user_id" text NOT NULL,
	"report_type" text NOT NULL,
	"added" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "comment_reports_comment_id_user_id_pk" PRIMARY KEY("comment_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "comment_votes" (
	"comment_id" text NOT NULL,
	"user_id" text NOT NULL,
	"vote" text NOT NULL,
	"added" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "comment_votes_comment_id_user_id_pk" PRIMARY KEY("comment_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "comments" (
	"id" text PRIMARY KEY NOT NULL,
	"app_id" text NOT NULL,
	"conversation_key" text NOT NULL,
	"parent_id" text DEFAULT '' NOT NULL,
	"root_id" text DEFAULT '' NOT NULL,
	"hierarchy" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"user_id" text NOT NULL,
	"comment_type" text DEFAULT 'comment' NOT NULL,
	"body" text NOT NULL,
	"original_body" text NOT NULL,
	"hashtags" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"mentions" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"custom_type" text DEFAULT '' NOT NULL,
	"custom_id" text,
	"custom_payload" text DEFAULT '' NOT NULL,
	"custom_field1" text DEFAULT '' NOT NULL,
	"custom_field2" text DEFAULT '' NOT NULL,
	"custom_tags" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"edited" boolean DEFAULT false NOT NULL,
	"censored" boolean DEFAULT false NOT NULL,
	"deleted" boolean DEFAULT false NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"moderation" text DEFAULT 'na' NOT NULL,
	"like_count" integer DEFAULT 0 NOT NULL,
	"reply_count" integer DEFAULT 0 NOT NULL,
	"vote_count" integer DEFAULT 0 NOT NULL,
	"vote_score" integer DEFAULT 0 NOT NULL,
	"reactions" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"votes" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"reports" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"added" timestamp (3) with time zone NOT NULL,
	"modified" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_app_id_applications_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."applications"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_event_reports" ADD CONSTRAINT "chat_event_reports_event_id_chat_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."chat_events"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_room_user_reports" ADD CONSTRAINT "chat_room_user_reports_room_id_chat_rooms_id_fk" FOREIGN KEY ("room_id") REFERENCES "public"."chat_rooms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "poll_choices" ADD CONSTRAINT "poll_choices_poll_id_polls_id_fk" FOREIGN KEY ("poll_id") REFERENCES "public"."polls"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "poll_leads" ADD CONSTRAINT "poll_leads_poll_id_polls_id_fk" FOREIGN KEY ("poll_id") REFERENCES "public"."polls"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "comment_conversation_reactions" ADD CONSTRAINT "comment_conversation_reactions_conversation_key_comment_conversations_key_fk" FOREIGN KEY ("conversation_key") REFERENCES "public"."comment_conversations"("key") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "comment_reactions" ADD CONSTRAINT "comment_reactions_comment_id_comments_id_fk" FOREIGN KEY ("comment_id") REFERENCES "public"."comments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "comment_reports" ADD CONSTRAINT "comment_reports_comment_id_comments_id_fk" FOREIGN KEY ("comment_id") REFERENCES "public"."comments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "comment_votes" ADD CONSTRAINT "comment_votes_comment_id_comments_id_fk" FOREIGN KEY ("comment_id") REFERENCES "public"."comments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "comments" ADD CONSTRAINT "comments_conversation_key_comment_conversations_key_fk" FOREIGN KEY ("conversation_key") REFERENCES "public"."comment_conversations"("key") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "api_tokens_app_idx" ON "api_tokens" USING btree ("app_id");--> statement-breakpoint
CREATE UNIQUE INDEX "user_reports_once_idx" ON "user_reports" USING btree ("pool","user_id","reported_by");--> statement-breakpoint
CREATE INDEX "user_reports_queue_idx" ON "user_reports" USING btree ("pool","added");--> statement-breakpoint
CREATE UNIQUE INDEX "users_handle_idx" ON "users" USING btree ("pool","handle_lower");--> statement-breakpoint
CREATE INDEX "users_display_name_idx" ON "users" USING btree ("pool",lower("display_name"));--> statement-breakpoint
CREATE UNIQUE INDEX "chat_room_user_reports_once_idx" ON "chat_room_user_reports" USING btree ("room_id","user_id","reported_by");--> statement-breakpoint
CREATE INDEX "chat_room_user_reports_window_idx" ON "chat_room_user_reports" USING btree ("room_id","user_id","added");--> statement-breakpoint
CREATE INDEX "poll_choices_poll_idx" ON "poll_choices" USING btree ("poll_id","position");--> statement-breakpoint
CREATE INDEX "poll_leads_poll_idx" ON "poll_leads" USING btree ("poll_id","id");--> statement-breakpoint
CREATE INDEX "poll_responses_user_idx" ON "poll_responses" USING btree ("poll_id","user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "polls_custom_id_idx" ON "polls" USING btree ("app_id","custom_id") WHERE "polls"."custom_id" is not null;--> statement-breakpoint
CREATE INDEX "polls_app_idx" ON "polls" USING btree ("app_id","id");--> statement-breakpoint
CREATE INDEX "webhook_log_hook_idx" ON "webhook_log" USING btree ("webhook_id","id");--> statement-breakpoint
CREATE INDEX "webhook_messages_hook_idx" ON "webhook_messages" USING btree ("webhook_id");--> statement-breakpoint
CREATE INDEX "webhook_outbox_due_idx" ON "webhook_outbox" USING btree ("next_attempt_at");--> statement-breakpoint
CREATE UNIQUE INDEX "webhooks_label_idx" ON "webhooks" USING btree ("app_id","label");--> statement-breakpoint
CREATE INDEX "notifications_user_idx" ON "notifications" USING btree ("app_id","user_id","id");--> statement-breakpoint
CREATE INDEX "notifications_item_idx" ON "notifications" USING btree ("app_id","user_id","item_id");--> statement-breakpoint
CREATE UNIQUE INDEX "chat_events_feed_idx" ON "chat_events" USING btree ("room_id","seq");--> statement-breakpoint
CREATE INDEX "chat_events_user_idx" ON "chat_events" USING btree ("room_id","user_id","seq");--> statement-breakpoint
CREATE INDEX "chat_events_type_idx" ON "chat_events" USING btree ("room_id","event_type","seq");--> statement-breakpoint
CREATE INDEX "chat_events_ts_idx" ON "chat_events" USING btree ("room_id","ts");--> statement-breakpoint
CREATE INDEX "chat_events_app_user_idx" ON "chat_events" USING btree ("app_id","user_id");--> statement-breakpoint
CREATE INDEX "chat_events_waiting_idx" ON "chat_events" USING btree ("app_id","moderation") WHERE "chat_events"."seq" is null;--> statement-breakpoint
CREATE INDEX "chat_events_queue_idx" ON "chat_events" USING btree ("app_id","id") WHERE "chat_events"."moderation" in ('pending', 'flagged');--> statement-breakpoint
CREATE INDEX "chat_events_parent_idx" ON "chat_events" USING btree ("parent_id");--> statement-breakpoint
CREATE INDEX "chat_participants_seen_idx" ON "chat_participants" USING btree ("last_seen");--> statement-breakpoint
CREATE UNIQUE INDEX "chat_rooms_custom_id_idx" ON "chat_rooms" USING btree ("app_id","custom_id");--> statement-breakpoint
CREATE INDEX "chat_rooms_app_idx" ON "chat_rooms" USING btree ("app_id","id");--> statement-breakpoint
CREATE INDEX "chat_subscriptions_user_idx" ON "chat_subscriptions" USING btree ("app_id","user_id","room_id");--> statement-breakpoint
CREATE UNIQUE INDEX "comment_conversations_id_idx" ON "comment_conversations" USING btree ("app_id","conversation_id");--> statement-breakpoint
CREATE UNIQUE INDEX "comment_conversations_customid_idx" ON "comment_conversations" USING btree ("app_id","custom_id");--> statement-breakpoint
CREATE INDEX "comment_conversations_property_idx" ON "comment_conversations" USING btree ("app_id","property","added","key");--> statement-breakpoint
CREATE INDEX "comment_conversations_added_idx" ON "comment_conversations" USING btree ("app_id","added","key");--> statement-breakpoint
CREATE INDEX "comments_by_time_idx" ON "comments" USING btree ("conversation_key","parent_id","added","id");--> statement-breakpoint
CREATE INDEX "comments_by_likes_idx" ON "comments" USING btree ("conversation_key","parent_id","like_count","added","id");--> statement-breakpoint
CREATE INDEX "comments_by_score_idx" ON "comments" USING btree ("conversation_key","parent_id","vote_score","added","id");--> statement-breakpoint
CREATE INDEX "comments_by_replies_idx" ON "comments" USING btree ("conversation_key","parent_id","reply_count","added","id");--> statement-breakpoint
CREATE INDEX "comments_by_root_idx" ON "comments" USING btree ("conversation_key","root_id","added","id");--> statement-breakpoint
CREATE INDEX "comments_hierarchy_idx" ON "comments" USING gin ("hierarchy");--> statement-breakpoint
CREATE INDEX "comments_user_idx" ON "comments" USING btree ("app_id","user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "comments_customid_idx" ON "comments" USING btree ("app_id","custom_id");--> statement-breakpoint
CREATE INDEX "comments_queue_idx" ON "comments" USING btree ("app_id","added","id") WHERE "comments"."moderation" in ('pending', 'flagged');