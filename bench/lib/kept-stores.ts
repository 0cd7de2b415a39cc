import { createHash } from 'node:crypto';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { administer } from '../../test/helpers/fresh-database.js';
import type { GrowTarget, StoreSize } from './grow-store.js';

/** What a bench needs of a grown store besides its rows: the app it made and that app's token. */
export interface GrownMeta extends GrowTarget {
  token: string;
}

/**
 * Grown stores kept between runs (GROWTH_STORES=/dir): growing 1,000,000 events takes minutes, and
 * a before/after comparison grows the same store twice. A store is kept once grown (an embedded
 * data directory copied, a Postgres database copied as a template) and copied back for each run,
 * so every run starts from the same rows. A kept store is found again by its size, the statements
 * that grew it and the migrations of the checkout measured (another set of migrations makes
 * another store).
 */
export class KeptStores {
  constructor(
    private readonly dir: string,
    /** The checkout whose server is measured (its migrations name the store). */
    private readonly root: string,
    /** On Postgres, the database the bench was given: a kept store is a database named after it. */
    private readonly databaseUrl: string | undefined,
  ) {}

  /** The store of this size copied into `dataDir` or the database of `url`, and its meta; undefined when none is kept. */
  async restore(size: StoreSize, dataDir: string, url: string | undefined): Promise<GrownMeta | undefined> {
    const name = this.name(size, url);
    const meta = join(this.dir, `${name}.json`);
    if (!existsSync(meta)) return undefined;
    if (url === undefined) {
      rmSync(dataDir, { recursive: true, force: true });
      cpSync(join(this.dir, name), dataDir, { recursive: true });
    } else {
      const database = databaseOf(url);
      await administer(adminUrl(url), `drop database if exists ${database} with (force)`);
      await administer(adminUrl(url), `create database ${database} template ${name}`);
    }
    return JSON.parse(readFileSync(meta, 'utf8')) as GrownMeta;
  }

  /** Keeps the grown store in `dataDir` or `url` (its server stopped). */
  async keep(size: StoreSize, dataDir: string, url: string | undefined, meta: GrownMeta): Promise<void> {
    const name = this.name(size, url);
    if (url === undefined) cpSync(dataDir, join(this.dir, name), { recursive: true });
    else {
      await administer(adminUrl(url), `drop database if exists ${name} with (force)`);
      await administer(adminUrl(url), `create database ${name} template ${databaseOf(url)}`);
    }
    writeFileSync(join(this.dir, `${name}.json`), JSON.stringify(meta));
  }

  private name(size: StoreSize, url: string | undefined): string {
    const grower = readFileSync(new URL('./grow-store.ts', import.meta.url), 'utf8');
    const migrations = readdirSync(join(this.root, 'migrations')).sort().join(',');
    const hash = createHash('sha256').update(grower).update(migrations).digest('hex').slice(0, 10);
    const kept = `kept_${size.history}_${size.rooms}_${size.users}_${hash}`;
    return url === undefined || this.databaseUrl === undefined ? `embedded_${kept}` : `${databaseOf(this.databaseUrl)}_${kept}`;
  }
}

const databaseOf = (url: string) => new URL(url).pathname.slice(1);

/** The maintenance database of the server `url` is on (a database cannot be copied or dropped from a connection to itself). */
function adminUrl(url: string): string {
  const admin = new URL(url);
  admin.pathname = '/postgres';
  return admin.toString();
}
