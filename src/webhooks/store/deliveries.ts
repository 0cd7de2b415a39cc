import { and, desc, eq, getTableColumns, lt, sql } from 'drizzle-orm';
import { boolArray, intArray, plannedOnce, textArray, textArrayLiteral } from '../../db/arrays.js';
import { deletedCount, preparedRows, rows, statementOnce, type Queryable } from '../../db/client.js';
import { applications, webhookJournal, webhookLog, webhookMessages, webhookOutbox, webhooks } from '../../db/schema/index.js';
import type { ClaimedRow, DeliveryTarget, JournalRow, LogEntryWithPayload, Message, Owed, Settlement } from '../types.js';

/** Newest first, before the id the previous page ended on; each with its message's body. */
export async function listLog(q: Queryable, webhookId: string, before: string | undefined, limit: number): Promise<LogEntryWithPayload[]> {
  return q
    .select({ ...getTableColumns(webhookLog), payload: webhookMessages.body })
    .from(webhookLog)
    .leftJoin(webhookMessages, eq(webhookMessages.id, webhookLog.messageId))
    .where(and(eq(webhookLog.webhookId, webhookId), before === undefined ? undefined : lt(webhookLog.id, before)))
    .orderBy(desc(webhookLog.id))
    .limit(limit);
}

/**
 * Rows as one JSON parameter: JSON.stringify and Postgres' JSON parser are the cheapest way to
 * ship many bodies. A body goes as a string, not as a JSON value: Postgres refuses some escapes
 * inside a `json` value (\u0000, a lone surrogate) that a text column stores as they are.
 */
const messageColumns = (items: Message[]) => sql`json_to_recordset(${JSON.stringify(items)}::json) as m("id" text, "webhookId" text, "appId" text, "eventType" text, "body" text, "journalKey" text)`;

/**
 * Settles journalled events: removes their webhook_journal rows and stores and queues the
 * messages of the rows it removed, in one statement, whatever the number. A row whose app's
 * enabled postpublish hooks are no longer those its messages were built from (see hooksView)
 * is left to the journal sweep, which builds them again from the hooks then stored. A row another node
 * settled first (the journal sweep, or the publishing node after a slow flush) is not stored
 * again. The first `held` rows are queued already claimed (first attempt, held for
 * `holdSeconds`) by the worker that will send them from memory; the rest wait for the outbox
 * poll. Returns the ids stored.
 */
export async function enqueue(q: Queryable, owed: Owed, held: number, holdSeconds: number): Promise<Set<string>> {
  if (owed.keys.length === 0) return new Set();
  const stored = await preparedRows<{ id: string }>(
    q,
    'webhook_enqueue',
    sql`with views as (
      select w.app_id, string_agg(w.id || '@' || floor(extract(epoch from w.when_modified) * 1000)::bigint, ',' order by w.id collate "C") as view
      from ${webhooks} w where w.enabled and w.type = 'postpublish'
        and w.app_id in (select j.app_id from ${webhookJournal} j where j.key = any(${textArray(owed.keys)}::text[]))
      group by w.app_id
    ), settled as (
      delete from ${webhookJournal} j using unnest(${textArray(owed.keys)}::text[], ${textArray(owed.views)}::text[]) as o(key, view)
      where j.key = o.key and o.view = coalesce((select v.view from views v where v.app_id = j.app_id), '')
      returning j.key
    ), stored as (
      insert into ${webhookMessages} (id, webhook_id, app_id, event_type, body)
      select m."id", m."webhookId", m."appId", m."eventType", m."body" from ${messageColumns(owed.rows)} join settled j on j.key = m."journalKey" returning id, webhook_id
    )
    insert into ${webhookOutbox} (id, webhook_id, attempts, locked_until)
    select s.id, s.webhook_id, case when h.id is null then 0 else 1 end, case when h.id is null then null else now() + make_interval(secs => ${holdSeconds}) end
    from stored s left join unnest(${textArray(owed.rows.slice(0, held).map((r) => r.id))}::text[]) as h(id) on h.id = s.id
    returning id`,
  );
  return new Set(stored.map((r) => r.id));
}

/**
 * Claims up to `limit` journal rows older than `graceSeconds` that no live node settled, for
 * `holdSeconds`: another node's claim is skipped, a crashed sweeper's lapses.
 */
export function claimJournal(q: Queryable, graceSeconds: number, limit: number, holdSeconds: number): Promise<JournalRow[]> {
  return rows<JournalRow>(
    q,
    sql`update ${webhookJournal} j set claimed_until = now() + make_interval(secs => ${holdSeconds})
        where j.key in (
          select x.key from ${webhookJournal} x
          where x.added < now() - make_interval(secs => ${graceSeconds}) and (x.claimed_until is null or x.claimed_until < now())
          order by x.added limit ${limit}
          for update skip locked)
        returning j.key, j.kind, j.app_id as "appId"`,
  );
}

/**
 * Takes up to `limit` due deliveries of enabled hooks and holds them for `holdSeconds`; rows
 * another worker holds are skipped, and a crashed worker's hold lapses.
 */
export async function claimDue(q: Queryable, limit: number, holdSeconds: number): Promise<ClaimedRow[]> {
  return preparedRows<ClaimedRow>(
    q,
    'webhook_claim_due',
    sql`with claimed as (
          update ${webhookOutbox} o set locked_until = now() + make_interval(secs => ${holdSeconds}), attempts = o.attempts + 1
          where o.id in (
            select x.id from ${webhookOutbox} x join ${webhooks} w on w.id = x.webhook_id
            where w.enabled and x.next_attempt_at <= now() and (x.locked_until is null or x.locked_until < now())
            order by x.next_attempt_at limit ${limit}
            for update of x skip locked)
          returning o.id, o.webhook_id, o.attempts)
        select c.id, c.webhook_id, m.event_type, m.body, c.attempts from claimed c join ${webhookMessages} m on m.id = c.id`,
  );
}

const TARGETS = statementOnce<DeliveryTarget & { id: string }>(
  'webhook_targets',
  sql`select w.id, w.url, a.webhook_secret as secret from ${webhooks} w join ${applications} a on a.id = w.app_id where w.id = any(${plannedOnce('hookIds', 'text[]')})`,
);

/** Where each hook's deliveries go and its app's signing secret, for the hooks that still exist. */
export async function deliveryTargets(q: Queryable, hookIds: string[]): Promise<Map<string, DeliveryTarget>> {
  const found = await TARGETS(q, { hookIds: textArrayLiteral(hookIds) });
  return new Map(found.map((t) => [t.id, t]));
}

/**
 * Records a batch of attempts in ONE statement (atomic on its own): outbox rows removed or
 * rescheduled, log entries written, failure runs counted, and hooks whose run reached `limit`
 * disabled. Returns the hooks at or over the limit.
 */
export async function settle(q: Queryable, s: Settlement, limit: number): Promise<{ id: string; app_id: string }[]> {
  const log = s.log;
  // Data-modifying CTEs always run to completion, whether or not the final statement reads them.
  return preparedRows<{ id: string; app_id: string; over: boolean }>(
    q,
    'webhook_settle',
    sql`with messages as (
        insert into ${webhookMessages} (id, webhook_id, app_id, event_type, body)
        select m."id", m."webhookId", m."appId", m."eventType", m."body" from ${messageColumns(s.messages)} returning 1
      ), done as (
        delete from ${webhookOutbox} where id = any(${textArray(s.done)}::text[]) returning 1
      ), retry as (
        update ${webhookOutbox} o set next_attempt_at = d.at, locked_until = null
        from unnest(${textArray(s.retry.map((r) => r.id))}::text[], ${textArray(s.retry.map((r) => r.at.toISOString()))}::timestamptz[]) as d(id, at)
        where o.id = d.id returning 1
      ), logged as (
        insert into ${webhookLog} (id, webhook_id, message_id, event_type, status_code, elapsed_ms, completed, attempt, error)
        select l.id, l.webhook_id, l.message_id, l.event_type, l.status_code, l.elapsed_ms, l.completed, l.attempt, l.error
        from unnest(${textArray(log.map((e) => e.id))}::text[], ${textArray(log.map((e) => e.webhookId))}::text[], ${textArray(log.map((e) => e.messageId))}::text[],
          ${textArray(log.map((e) => e.eventType))}::text[], ${intArray(log.map((e) => e.statusCode))}::int[], ${intArray(log.map((e) => e.elapsedMs))}::int[],
          ${boolArray(log.map((e) => e.completed))}::boolean[], ${intArray(log.map((e) => e.attempt))}::int[],
          ${textArray(log.map((e) => e.error ?? ''))}::text[]) as l(id, webhook_id, message_id, event_type, status_code, elapsed_ms, completed, attempt, error)
        join ${webhooks} w on w.id = l.webhook_id
        returning 1
      )
      update ${webhooks} w
      set consecutive_failures = case when d.reset then d.n else w.consecutive_failures + d.n end,
          enabled = w.enabled and (case when d.reset then d.n else w.consecutive_failures + d.n end) < ${limit}
      from unnest(${textArray(s.runs.map((r) => r.webhookId))}::text[], ${boolArray(s.runs.map((r) => r.reset))}::boolean[], ${intArray(s.runs.map((r) => r.n))}::int[]) as d(id, reset, n)
      where w.id = d.id
      returning w.id, w.app_id, w.consecutive_failures >= ${limit} as over`,
  ).then((found) => found.filter((r) => r.over));
}

/** Deletes up to `limit` log entries with ids before `before` (older attempts); returns how many. */
export function pruneLog(q: Queryable, before: string, limit: number): Promise<number> {
  return deletedCount(q, sql`delete from ${webhookLog} where id in (select id from ${webhookLog} where id < ${before} order by id limit ${limit} for update skip locked) returning 1`);
}

/** Deletes up to `limit` messages with ids before `before` that are no longer waiting in the outbox; returns how many. */
export function pruneMessages(q: Queryable, before: string, limit: number): Promise<number> {
  return deletedCount(
    q,
    sql`delete from ${webhookMessages} where id in (
          select m.id from ${webhookMessages} m
          where m.id < ${before} and not exists (select 1 from ${webhookOutbox} o where o.id = m.id)
          order by m.id limit ${limit} for update of m skip locked)
        returning 1`,
  );
}

/** Deliveries waiting in the outbox (due or scheduled for a retry), for the queue-depth gauge. */
export async function outboxDepth(q: Queryable): Promise<number> {
  const [row] = await q.select({ n: sql<number>`count(*)::int` }).from(webhookOutbox);
  return row?.n ?? 0;
}
