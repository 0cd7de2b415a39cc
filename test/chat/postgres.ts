import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Postgres, privatePostgres } from '../helpers/private-postgres.js';

export type { Postgres };

/**
 * The Postgres a multi-node test runs on: DATABASE_URL when given (CI), else a throwaway
 * cluster of the local Postgres binaries on a free port, removed by stop().
 */
export async function testPostgres(): Promise<Postgres> {
  const given = process.env['DATABASE_URL'];
  if (given !== undefined && given !== '') return { url: given, stop: () => undefined };
  const dir = mkdtempSync(join(tmpdir(), 'chat-pg-'));
  const postgres = await privatePostgres(dir);
  return {
    url: postgres.url,
    stop() {
      postgres.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
