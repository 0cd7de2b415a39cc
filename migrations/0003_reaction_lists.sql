-- Reactions and votes list their latest users (REACTION_USERS_SHOWN, default 10) beside exact counts: lists kept before are cut to their latest 10.
CREATE INDEX "comment_conversation_reactions_latest_idx" ON "comment_conversation_reactions" USING btree ("conversation_key","type","added","user_id");--> statement-breakpoint
CREATE INDEX "comment_reactions_latest_idx" ON "comment_reactions" USING btree ("comment_id","type","added","user_id");--> statement-breakpoint
CREATE INDEX "comment_votes_latest_idx" ON "comment_votes" USING btree ("comment_id","vote","added","user_id");--> statement-breakpoint
UPDATE "comments" SET "reactions" = (
  SELECT jsonb_agg(jsonb_set(t, '{users}', (SELECT coalesce(jsonb_agg(u ORDER BY i), '[]'::jsonb) FROM jsonb_array_elements(t->'users') WITH ORDINALITY AS x(u, i) WHERE i > jsonb_array_length(t->'users') - 10)) ORDER BY o)
  FROM jsonb_array_elements("reactions") WITH ORDINALITY AS e(t, o)
) WHERE EXISTS (SELECT 1 FROM jsonb_array_elements("reactions") AS e(t) WHERE jsonb_array_length(t->'users') > 10);--> statement-breakpoint
UPDATE "comments" SET "votes" = (
  SELECT jsonb_agg(jsonb_set(t, '{users}', (SELECT coalesce(jsonb_agg(u ORDER BY i), '[]'::jsonb) FROM jsonb_array_elements(t->'users') WITH ORDINALITY AS x(u, i) WHERE i > jsonb_array_length(t->'users') - 10)) ORDER BY o)
  FROM jsonb_array_elements("votes") WITH ORDINALITY AS e(t, o)
) WHERE EXISTS (SELECT 1 FROM jsonb_array_elements("votes") AS e(t) WHERE jsonb_array_length(t->'users') > 10);--> statement-breakpoint
UPDATE "comment_conversations" SET "reactions" = (
  SELECT jsonb_agg(jsonb_set(t, '{users}', (SELECT coalesce(jsonb_agg(u ORDER BY i), '[]'::jsonb) FROM jsonb_array_elements(t->'users') WITH ORDINALITY AS x(u, i) WHERE i > jsonb_array_length(t->'users') - 10)) ORDER BY o)
  FROM jsonb_array_elements("reactions") WITH ORDINALITY AS e(t, o)
) WHERE EXISTS (SELECT 1 FROM jsonb_array_elements("reactions") AS e(t) WHERE jsonb_array_length(t->'users') > 10);
