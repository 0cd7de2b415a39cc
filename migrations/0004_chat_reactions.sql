CREATE TABLE "chat_reactions" (
	"event_id" text NOT NULL,
	"type" text NOT NULL,
	"user_id" text NOT NULL,
	"n" bigint GENERATED ALWAYS AS IDENTITY (sequence name "chat_reactions_n_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"added" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "chat_reactions_event_id_user_id_type_pk" PRIMARY KEY("event_id","user_id","type")
);
--> statement-breakpoint
ALTER TABLE "chat_reactions" ADD CONSTRAINT "chat_reactions_event_id_chat_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."chat_events"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "chat_reactions_latest_idx" ON "chat_reactions" USING btree ("event_id","type","n");--> statement-breakpoint
INSERT INTO "chat_reactions" ("event_id", "type", "user_id", "added")
SELECT e."id", r->>'type', u.user_id, e."added"
FROM "chat_events" e, jsonb_array_elements(e."reactions") r, jsonb_array_elements_text(r->'users') WITH ORDINALITY u(user_id, k)
ORDER BY e."id", r->>'type', u.k
ON CONFLICT DO NOTHING;--> statement-breakpoint
UPDATE "chat_events" SET "reactions" = (
  SELECT jsonb_agg(r || jsonb_build_object(
    'count', jsonb_array_length(r->'users'),
    'users', COALESCE((SELECT jsonb_agg(u ORDER BY j) FROM jsonb_array_elements(r->'users') WITH ORDINALITY y(u, j) WHERE j > jsonb_array_length(r->'users') - 10), '[]'::jsonb)
  ) ORDER BY k)
  FROM jsonb_array_elements("reactions") WITH ORDINALITY x(r, k)
)
WHERE "reactions" <> '[]'::jsonb;
