/**
 * What one page of stored notifications costs as the page grows: the statements the database ran
 * to answer a `listnotifications` page (pg_stat_statements' calls in the server's database) and
 * the server's CPU per page, for pages of SIZES notifications, half likes of chat events, half
 * replies to a comment. DATABASE_URL must name a Postgres that loads pg_stat_statements
 * (shared_preload_libraries); each checkout's built server (npm run build) runs on a fresh
 * database beside it.
 *
 *   DATABASE_URL=postgres://… npm run bench:notify-page
 *   CHECKOUTS=before=/path/to/old/checkout,after=. DATABASE_URL=postgres://… npm run bench:notify-page
 *   SIZES=2,20,200 TRIES=20
 */
import pg from 'pg';
import { BUILT, spawnServer } from '../test/helpers/spawn.js';
import { benchApp, type BenchApp } from './lib/app.js';
import { cpuSeconds } from './lib/cpu.js';
import { freshDatabase } from '../test/helpers/fresh-database.js';
import { checkoutsFromEnv } from './lib/checkouts.js';

const databaseUrl = process.env['DATABASE_URL'];
if (databaseUrl === undefined) throw new Error('DATABASE_URL must name a Postgres with pg_stat_statements in shared_preload_libraries');
const sizes = (process.env['SIZES'] ?? '2,20,200').split(',').map(Number);
const tries = Number(process.env['TRIES'] ?? 20);

async function run(checkout: { name: string; root: string }): Promise<void> {
  const url = (await freshDatabase(databaseUrl, `notify_page_${checkout.name}`)) as string;
  const stats = new pg.Client({ connectionString: url });
  await stats.connect();
  await stats.query('create extension if not exists pg_stat_statements');
  /** Every statement run in this database so far; each read counts itself once. */
  const statementsRun = async () =>
    Number((await stats.query('select coalesce(sum(calls), 0) as n from pg_stat_statements where dbid = (select oid from pg_database where datname = current_database())')).rows[0].n);
  const server = await spawnServer({ RATE_LIMITS: 'off', DATABASE_URL: url }, BUILT, checkout.root);
  const pid = server.process.pid as number;
  try {
    const app = await benchApp(server.url);
    const room = (await app.call<{ id: string }>('POST', 'chat/rooms', { name: 'notified', enableenterandexit: false })).id;
    for (const userid of ['author', 'fan']) await app.call('POST', `chat/rooms/${room}/join`, { userid, displayname: userid });
    await app.call('POST', 'comment/conversations', { conversationid: 'notified', property: 'bench', moderation: 'post' });
    const original = await app.call<{ id: string }>('POST', 'comment/conversations/notified/comments', { userid: 'author', body: 'original' });
    let made = 0;
    /** Until the author has `count` notifications: a like of a new message of theirs and a reply to their comment each. */
    const grow = async (count: number) => {
      for (; made < count / 2; made++) {
        const message = await app.call<{ speech: { id: string } }>('POST', `chat/rooms/${room}/command`, { userid: 'author', command: `message ${made}` });
        await app.call('POST', `chat/rooms/${room}/events/${message.speech.id}/react`, { userid: 'fan', reaction: 'like', reacted: true });
        await app.call('POST', `comment/conversations/notified/comments/${original.id}`, { userid: `replier${made}`, displayname: 'Replier', body: `reply ${made}` });
      }
      while ((await page(app, count)).itemcount < count) await new Promise((r) => setTimeout(r, 50));
    };

    process.stdout.write(`\n${checkout.name}: listnotifications, postgres, fewest statements of ${tries} pages, and their mean server CPU\n`);
    process.stdout.write('notifications a page   statements a page   server CPU ms a page\n');
    for (const size of sizes) {
      await grow(size);
      // As many pages unmeasured first: the server's code for them is compiled and its caches warm.
      for (let t = 0; t < tries; t++) await page(app, size);
      const statements: number[] = [];
      const cpuBefore = cpuSeconds(pid);
      for (let t = 0; t < tries; t++) {
        const before = await statementsRun();
        const listed = await page(app, size);
        // Less the read of the count itself; a background job of the server may add to one try, hence the fewest.
        statements.push((await statementsRun()) - before - 1);
        if (listed.itemcount !== size || listed.notifications.some((n) => n.payload === null)) throw new Error(`a page of ${size} answered ${listed.itemcount}, some without payload`);
      }
      const cpuMs = ((cpuSeconds(pid) - cpuBefore) * 1000) / tries;
      process.stdout.write(`${String(size).padStart(20)} ${String(Math.min(...statements)).padStart(19)} ${cpuMs.toFixed(2).padStart(22)}\n`);
    }
  } finally {
    await server.stop();
    await stats.end();
  }
}

function page(app: BenchApp, limit: number) {
  return app.call<{ itemcount: number; notifications: { payload: unknown }[] }>('GET', `user/users/author/notification/listnotifications?limit=${limit}`);
}

for (const checkout of checkoutsFromEnv()) await run(checkout);
