import type pg from 'pg';
import { COMMITS_CHANNEL, COMMITS_NOTICE, type CommitVersions } from './commit-versions.js';

/** What node-postgres hands a connection's listeners for Postgres' ReadyForQuery: the transaction status after it. */
interface ReadyForQuery {
  /** 'I' idle (no transaction open), 'T' in a transaction, 'E' in a failed one. */
  status: string;
}

/**
 * Makes a pool connection of a single node tell `versions` what its statements change
 * (commitTriggers): the keys its notices name count once its transaction is over, before the
 * statement that ended it returns, so a change is heard before the write is answered. A
 * transaction rolled back counts too: a version that moves for nothing costs one read more, a
 * change missed would be served stale. The connection also listens for the changes other
 * clients commit (an operator's SQL), heard a moment after they commit.
 */
export function hearCommits(client: pg.Client, versions: CommitVersions): Promise<void> {
  let told: string[] = [];
  client.on('notice', (notice) => {
    const text = notice.message;
    if (text?.startsWith(COMMITS_NOTICE)) told.push(text.slice(COMMITS_NOTICE.length));
  });
  // Before node-postgres answers the statement that ended the transaction.
  client.connection.prependListener('readyForQuery', (message: ReadyForQuery) => {
    if (message.status !== 'I' || told.length === 0) return;
    for (const keys of told) versions.changed(keys);
    told = [];
  });
  client.on('notification', (message) => versions.heard(message.channel, message.payload ?? ''));
  // The notices must reach it whatever the role's or the database's setting (a statement, not a
  // startup parameter: a session pooler may refuse those).
  return client.query(`set client_min_messages to notice; listen ${COMMITS_CHANNEL}`).then(() => undefined);
}
