import { sql } from 'drizzle-orm';
import { intArrayLiteral, textArrayLiteral, plannedOnce } from '../../db/arrays.js';
import { statementOnce, type Queryable } from '../../db/client.js';

/** A first page as kept (comment_page_renderings, migration 0015): what it was made from, and its JSON. */
export interface Rendering {
  conversationKey: string;
  /** The page's parameters (sort, direction, limit, ...). */
  variant: string;
  conversationRevision: number;
  userPool: string;
  /** The users the page shows, and each one's when_modified (epoch ms) as shown; null: not there. Kept only while each still is. */
  userIds: string[];
  userModified: (number | null)[];
  /** Epoch ms at which it stops holding by itself (a shown ban or mute runs out), or null. */
  expiresAt: number | null;
  json: string;
}

/** A page wanted: the app's conversation (its id) and the variant. */
export interface WantedRendering {
  appId: string;
  conversationId: string;
  variant: string;
}

/** Kept variants per conversation at most: a client asking for every limit keeps no more. */
export const VARIANTS_KEPT = 3;

/**
 * The kept pages of the wanted ones that still hold now, each found by its conversation's unique
 * index and its own key (laterally: joined, the planner read whole tables for a few wanted pages).
 * A page holds while its conversation's revision is the one it was made with and no user it shows
 * as not there has come (an index lookup only where the page shows one); a change of a user it
 * shows has dropped it (migration 0016).
 */
const HOLDING = statementOnce<{ i: number; json: Buffer; expires: number | null }>(
  'comment_page_renderings_holding',
  // The page last: on the embedded database a row is decoded as text up to its last text field (pglite-wire.ts).
  sql`select w.i::int as i, found.expires, found.json from unnest(${plannedOnce('apps', 'text[]')}, ${plannedOnce('ids', 'text[]')}, ${plannedOnce('variants', 'text[]')}) with ordinality as w(app, id, variant, i)
    cross join lateral (select c.key, c.revision from comment_conversations c where c.app_id = w.app and c.conversation_id = w.id) as c
    cross join lateral (
      select p.page as json, (extract(epoch from p.expires_at) * 1000)::float8 as expires
      from comment_page_renderings p
      where p.conversation_key = c.key and p.variant = w.variant and p.conversation_revision = c.revision
        and (p.expires_at is null or p.expires_at > now())
        and (cardinality(p.absent_user_ids) = 0 or not exists (select 1 from users u where u.pool = p.user_pool and u.user_id = any (p.absent_user_ids)))
    ) as found`,
);

/** The wanted pages that hold, by the index of the wanted one: their JSON, and until when (epoch ms; null: no end). */
export async function findHoldingRenderings(q: Queryable, wanted: WantedRendering[]): Promise<Map<number, { json: Buffer; expires: number | null }>> {
  const found = await HOLDING(q, {
    apps: textArrayLiteral(wanted.map((w) => w.appId)),
    ids: textArrayLiteral(wanted.map((w) => w.conversationId)),
    variants: textArrayLiteral(wanted.map((w) => w.variant)),
  });
  return new Map(found.map((row) => [row.i - 1, { json: row.json, expires: row.expires }]));
}

/** Between the pages' JSON in one text value: a control character JSON.stringify never leaves raw in its output. */
const PAGE_SEPARATOR = '\u001e';

/**
 * Keeps the pages, each replacing the one kept of its variant, unless its conversation already
 * keeps VARIANTS_KEPT others (a conversation gone fails its foreign key), and only while each user
 * it shows is as it was made: those there locked (an update of one under way: not kept; one
 * waiting on the lock drops the page once it is kept, migration 0016), those not there still not
 * there. One named statement whatever their number. The pages' JSON travels as one text value, as
 * it is (split on PAGE_SEPARATOR): inside a JSON or an array parameter it was escaped, and parsed again.
 */
const KEEP = statementOnce<never>(
  'comment_page_renderings_keep',
  sql`insert into comment_page_renderings (conversation_key, variant, conversation_revision, user_pool, user_ids, absent_user_ids, expires_at, page)
    select p.key, p.variant, p.revision, p.pool, shown.present, shown.absent, to_timestamp(p.expires / 1000), convert_to(p.json, 'UTF8')
    from unnest(${sql.placeholder('keys')}::text[], ${sql.placeholder('variants')}::text[], ${sql.placeholder('revisions')}::bigint[], ${sql.placeholder('pools')}::text[],
      ${sql.placeholder('expires')}::float8[], string_to_array(${sql.placeholder('pages')}::text, ${PAGE_SEPARATOR}), array(select jsonb_array_elements(${sql.placeholder('users')}::jsonb)))
      as p(key, variant, revision, pool, expires, json, users)
    cross join lateral (
      select coalesce(array_agg(s.id) filter (where s.modified is not null), '{}') as present, coalesce(array_agg(s.modified) filter (where s.modified is not null), '{}') as modified,
        coalesce(array_agg(s.id) filter (where s.modified is null), '{}') as absent
      from jsonb_to_recordset(p.users) as s(id text, modified bigint)
    ) as shown
    where (select count(*) from comment_page_renderings k where k.conversation_key = p.key and k.variant <> p.variant) < ${VARIANTS_KEPT}
      and (select count(*) from (
          select 1 from unnest(shown.present, shown.modified) as s(id, modified) join users u on u.pool = p.pool and u.user_id = s.id
          where (extract(epoch from date_trunc('milliseconds', u.when_modified)) * 1000)::bigint = s.modified
          for share of u skip locked) as held) = cardinality(shown.present)
      and not exists (select 1 from users u where u.pool = p.pool and u.user_id = any (shown.absent))
    on conflict (conversation_key, variant) do update set conversation_revision = excluded.conversation_revision, user_pool = excluded.user_pool,
      user_ids = excluded.user_ids, absent_user_ids = excluded.absent_user_ids, expires_at = excluded.expires_at, page = excluded.page`,
);

/** Keeps the pages (at most one of each conversation's variant). */
export async function keepRenderings(q: Queryable, renderings: Rendering[]): Promise<void> {
  await KEEP(q, {
    keys: textArrayLiteral(renderings.map((r) => r.conversationKey)),
    variants: textArrayLiteral(renderings.map((r) => r.variant)),
    revisions: intArrayLiteral(renderings.map((r) => r.conversationRevision)),
    pools: textArrayLiteral(renderings.map((r) => r.userPool)),
    expires: intArrayLiteral(renderings.map((r) => r.expiresAt)),
    pages: renderings.map((r) => r.json).join(PAGE_SEPARATOR),
    users: JSON.stringify(renderings.map((r) => r.userIds.map((id, i) => ({ id, modified: r.userModified[i] ?? null })))),
  });
}
