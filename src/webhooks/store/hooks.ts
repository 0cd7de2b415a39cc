import { and, asc, eq, getTableColumns, gt, inArray, sql } from 'drizzle-orm';
import type { Queryable, Tx } from '../../db/client.js';
import { webhookLog, webhookMessages, webhookOutbox, webhooks } from '../../db/schema/index.js';
import type { Webhook, WebhookFields } from '../types.js';

/**
 * Waits for the transactions in flight that publish (insert chat events, comments or comment
 * reactions, or release them into the feed) and holds new ones back until the caller's
 * transaction ends. Publishing journals its events when it sees an enabled postpublish hook
 * (migrations 0005, 0006); a hook written under this lock is seen by every publishing statement
 * that commits after it, so no event it matches escapes the journal. Reads go on.
 */
export async function holdPublishing(tx: Tx): Promise<void> {
  await tx.execute(sql`lock table chat_events, comments, comment_reactions in share mode`);
}

/** Creates the hook, or replaces the one with the same label; `inserted` tells which. */
export async function upsertByLabel(q: Queryable, id: string, appId: string, fields: WebhookFields): Promise<{ hook: Webhook; inserted: boolean }> {
  const [row] = await q
    .insert(webhooks)
    .values({ id, appId, ...fields })
    .onConflictDoUpdate({ target: [webhooks.appId, webhooks.label], set: { ...fields, consecutiveFailures: 0, whenModified: new Date() } })
    .returning({ ...getTableColumns(webhooks), inserted: sql<boolean>`(xmax = 0)` });
  const { inserted, ...hook } = row as Webhook & { inserted: boolean };
  return { hook, inserted };
}

export async function updateHook(q: Queryable, appId: string, id: string, fields: WebhookFields): Promise<Webhook | undefined> {
  const [row] = await q
    .update(webhooks)
    .set({ ...fields, consecutiveFailures: 0, whenModified: new Date() })
    .where(and(eq(webhooks.appId, appId), eq(webhooks.id, id)))
    .returning();
  return row;
}

/** Deletes the hook with its pending deliveries, messages and log, in one statement. */
export async function deleteHook(q: Queryable, appId: string, id: string): Promise<Webhook | undefined> {
  const own = q
    .select({ id: webhooks.id })
    .from(webhooks)
    .where(and(eq(webhooks.appId, appId), eq(webhooks.id, id)));
  const [row] = await q
    .with(
      q.$with('outbox').as(q.delete(webhookOutbox).where(inArray(webhookOutbox.webhookId, own)).returning({ id: webhookOutbox.id })),
      q.$with('messages').as(q.delete(webhookMessages).where(inArray(webhookMessages.webhookId, own)).returning({ id: webhookMessages.id })),
      q.$with('log').as(q.delete(webhookLog).where(inArray(webhookLog.webhookId, own)).returning({ id: webhookLog.id })),
    )
    .delete(webhooks)
    .where(and(eq(webhooks.appId, appId), eq(webhooks.id, id)))
    .returning();
  return row;
}

export async function findHook(q: Queryable, appId: string, id: string): Promise<Webhook | undefined> {
  const [row] = await q
    .select()
    .from(webhooks)
    .where(and(eq(webhooks.appId, appId), eq(webhooks.id, id)));
  return row;
}

export async function hooksOf(q: Queryable, appId: string): Promise<Webhook[]> {
  return q.select().from(webhooks).where(eq(webhooks.appId, appId)).orderBy(asc(webhooks.id));
}

export async function listHooks(q: Queryable, appId: string, after: string, limit: number): Promise<Webhook[]> {
  return q
    .select()
    .from(webhooks)
    .where(and(eq(webhooks.appId, appId), gt(webhooks.id, after)))
    .orderBy(asc(webhooks.id))
    .limit(limit);
}

/** Hooks that failures disabled (a change through the API resets their run), for the disabled-hooks gauge. */
export async function disabledByFailures(q: Queryable, limit: number): Promise<number> {
  const [row] = await q
    .select({ n: sql<number>`count(*)::int` })
    .from(webhooks)
    .where(and(eq(webhooks.enabled, false), sql`${webhooks.consecutiveFailures} >= ${limit}`));
  return row?.n ?? 0;
}
