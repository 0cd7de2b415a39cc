import { createHash } from 'node:crypto';
import { asc, count, eq, gt } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { apiTokens, applications } from '../db/schema/index.js';
import { newId, newSecret } from '../ids.js';
import type { Application } from './types.js';

const hashToken = (token: string) => createHash('sha256').update(token).digest('base64url');

export interface NewApplication {
  name: string;
  userReportsLimit: number;
  useOrganizationUserDatabase: boolean;
  organizationId: string | undefined;
}

/**
 * Applications and their API tokens. Authentication sits on every request, so a verified
 * token is remembered in memory: the hot paths pay no database round trip for it.
 */
export class AppDirectory {
  /** Keyed by the token as presented: a hit costs no hashing. Only verified tokens enter. */
  private readonly byToken = new Map<string, Application>();
  private readonly byId = new Map<string, Application>();

  constructor(private readonly db: Db) {}

  async create(input: NewApplication): Promise<Application> {
    const id = newId();
    const shared = input.useOrganizationUserDatabase && input.organizationId !== undefined;
    const [row] = await this.db
      .insert(applications)
      .values({
        id,
        name: input.name,
        userReportsLimit: input.userReportsLimit,
        useOrganizationUserDatabase: input.useOrganizationUserDatabase,
        organizationId: input.organizationId ?? null,
        userPool: shared ? `org:${input.organizationId}` : `app:${id}`,
        jwtSecret: newSecret(),
        webhookSecret: `whsec_${newSecret(24)}`,
      })
      .returning();
    return row as Application;
  }

  async createToken(appId: string, name: string, permissions: string[]): Promise<string> {
    const token = newSecret(32);
    await this.db.insert(apiTokens).values({ tokenHash: hashToken(token), appId, name, permissions });
    return token;
  }

  async get(appId: string): Promise<Application | undefined> {
    const cached = this.byId.get(appId);
    if (cached !== undefined) return cached;
    const [row] = await this.db.select().from(applications).where(eq(applications.id, appId));
    if (row !== undefined) this.byId.set(appId, row);
    return row;
  }

  /** The application the token belongs to, if it is `appId`'s; undefined otherwise. */
  async authenticate(appId: string, token: string): Promise<Application | undefined> {
    const cached = this.byToken.get(token);
    if (cached !== undefined) return cached.id === appId ? cached : undefined;
    const [row] = await this.db.select({ appId: apiTokens.appId }).from(apiTokens).where(eq(apiTokens.tokenHash, hashToken(token)));
    if (row === undefined) return undefined;
    const app = await this.get(row.appId);
    if (app === undefined) return undefined;
    this.byToken.set(token, app);
    return app.id === appId ? app : undefined;
  }

  /** Up to `limit` applications after the id `after` ('' for the first), oldest first (ids are time-ordered). */
  async list(after: string, limit: number): Promise<Application[]> {
    return this.db.select().from(applications).where(gt(applications.id, after)).orderBy(asc(applications.id)).limit(limit);
  }

  async count(): Promise<number> {
    const [row] = await this.db.select({ n: count() }).from(applications);
    return row?.n ?? 0;
  }
}
