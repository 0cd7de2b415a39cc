import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, describe, expect, it } from 'vitest';
import { codeMigrations, MIGRATIONS_TABLE, migrationStatements } from '../../src/backup/migrations.js';
import { EMBEDDED_OPTIONS } from '../../src/db/embedded.js';
import { Client } from '../helpers/api.js';
import { spawnServer } from '../helpers/spawn.js';
import { removeAll, runCommand, tableCounts } from './helpers.js';

/**
 * A restore or a move of a database made by an older version of engage-server (fewer migrations
 * applied) brings it forward with this version's migrations; one of a newer version, or of a
 * fork (a migration this version has otherwise), is refused with nothing changed. The old
 * database is made here as that version left it: this version's first migration alone.
 */
const EMBEDDED = { DATABASE_URL: '' };
const work = mkdtempSync(join(tmpdir(), 'engage-versions-'));
const TOKEN = 'an-api-token-made-by-an-old-version-0123456789';

afterAll(() => removeAll(work));

/** An embedded database at the schema of the first migration, holding one application and its token; `extra` runs last. */
async function oldDatabase(name: string, extra = ''): Promise<string> {
  // PGlite makes the database in an empty directory.
  const db = new PGlite(join(work, name), EMBEDDED_OPTIONS);
  try {
    for (const statement of [...MIGRATIONS_TABLE, ...migrationStatements(codeMigrations().slice(0, 1))]) await db.exec(statement);
    await db.exec(`insert into applications (id, name, user_pool, jwt_secret, webhook_secret) values ('old-app', 'made long ago', 'old-app', 'old-jwt-secret', 'old-webhook-secret');
      insert into api_tokens (token_hash, app_id, name) values ('${createHash('sha256').update(TOKEN).digest('base64url')}', 'old-app', 'old');
      ${extra}`);
  } finally {
    await db.close();
  }
  return join(work, name);
}

describe('schema versions', () => {
  it('a database of an older version is moved and brought forward: its rows and token work on this version', async () => {
    const old = await oldDatabase('older');
    const target = join(work, 'forward');
    const moved = await runCommand('move', ['--from', old, '--to', target], EMBEDDED);
    expect(moved.stderr).toMatch(/move: done/);
    expect(moved.code).toBe(0);
    expect(moved.stdout).toContain(`then ${codeMigrations().length - 1} newer migrations applied`);
    expect((await tableCounts({ dir: target }))['applications']).toBe(1);
    const server = await spawnServer({ ...EMBEDDED, DATA_DIR: target });
    try {
      const res = await new Client(server.url, 'old-app', TOKEN).get('chat/rooms');
      expect(res.status).toBe(200);
    } finally {
      await server.stop();
    }
  }, 120_000);

  it('a database of a newer version, or of a fork, is refused with nothing changed', async () => {
    const newer = await oldDatabase('newer', `insert into drizzle.__drizzle_migrations (hash, created_at) values ('${'e'.repeat(64)}', 4102444800000);`);
    const forked = await oldDatabase('forked', `update drizzle.__drizzle_migrations set hash = '${'f'.repeat(64)}';`);
    const cases = [
      [newer, /made by a newer version/],
      [forked, /migration 1 .* is not this engage-server's/],
    ] as const;
    for (const [i, [source, message]] of cases.entries()) {
      const target = join(work, `refused-${i}`);
      const result = await runCommand('move', ['--from', source, '--to', target], EMBEDDED);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(message);
      expect(await tableCounts({ dir: target })).toEqual({});
    }
  }, 120_000);
});
