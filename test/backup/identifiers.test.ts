import { PGlite } from '@electric-sql/pglite';
import { describe, expect, it } from 'vitest';
import { identifier } from '../../src/backup/catalog.js';

/**
 * A restore compares the backup's columns with its own catalog's, each quoted by its database's
 * `quote_ident`: Postgres 15 leaves `json` bare, the embedded database (17) quotes it, a keyword there.
 */
describe('column names of a backup and of the database it is restored into', () => {
  it('are the same identifier however each version quotes them', async () => {
    const db = new PGlite();
    try {
      const names = ['json', 'conversation_key', 'Mixed Case', 'with "quote"'];
      const quoted = (await db.query<{ q: string[] }>('select array(select quote_ident(n) from unnest($1::text[]) n) as q', [names])).rows[0]?.q ?? [];
      expect(quoted[0]).toBe('"json"');
      expect(quoted.map(identifier)).toEqual(names);
      expect(['json', 'conversation_key'].map(identifier)).toEqual(['json', 'conversation_key']);
    } finally {
      await db.close();
    }
  });
});
