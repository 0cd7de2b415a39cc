import { createHash } from 'node:crypto';
import { asc, count, eq, gt, inArray } from 'drizzle-orm';
import { ReplicatedCache } from '../cache/replicated-cache.js';
import type { Db } from '../db/client.js';
import { apiTokens, applications } from '../db/schema/index.js';
import { newId, newSecret, newWebhookSecret } from '../ids.js';
import { internal, on } from '../internal-messages.js';
import { UnknownTokens } from '../limits/unknown-tokens.js';
import type { Bus } from '../realtime/bus.js';
import type { Application, Credential, TokenInfo, TokenScope } from './types.js';

const hashToken = (token: string) => createHash('sha256').update(token).digest('base64url');

/** Verified tokens remembered; beyond, the oldest remembered is verified again when next presented. */
const TOKENS_REMEMBERED = 50_000;

export interface NewApplication {
  name: string;
  userReportsLimit: number;
  useOrganizationUserDatabase: boolean;
  organizationId: string | undefined;
}

export interface NewToken {
  name: string;
  scope: TokenScope;
  permissions: string[];
}

const tokenColumns = { id: apiTokens.id, appId: apiTokens.appId, name: apiTokens.name, scope: apiTokens.scope, permissions: apiTokens.permissions, added: apiTokens.added };

/**
 * Applications and their API tokens. Authentication sits on every request, so a verified
 * token is remembered in memory: the hot paths pay no database round trip for it. A revoked
 * token is announced on the bus and forgotten by every node. Applications themselves never
 * change once created, so they are remembered without invalidation.
 */
export class AppDirectory {
  /** Keyed by the token as presented (a hit costs no hashing), revoked by its id. Only verified tokens enter. */
  private readonly byToken: ReplicatedCache<Credential>;
  private readonly byId = new Map<string, Application>();
  private readonly unknownTokens = new UnknownTokens();

  constructor(
    private readonly db: Db,
    private readonly bus: Bus,
  ) {
    this.byToken = new ReplicatedCache<Credential>(bus, { invalidation: internal.tokenRevoked, limit: TOKENS_REMEMBERED, idOf: (credential) => credential.id });
  }

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
        webhookSecret: newWebhookSecret(),
      })
      .returning();
    return row as Application;
  }

  async createToken(appId: string, input: NewToken): Promise<{ token: string; info: TokenInfo }> {
    const token = newSecret(32);
    const [row] = await this.db
      .insert(apiTokens)
      .values({ tokenHash: hashToken(token), id: newId(), appId, ...input })
      .returning(tokenColumns);
    return { token, info: row as TokenInfo };
  }

  async listTokens(appId: string): Promise<TokenInfo[]> {
    return this.db.select(tokenColumns).from(apiTokens).where(eq(apiTokens.appId, appId)).orderBy(asc(apiTokens.id));
  }

  /** Deletes the token and tells every node to forget it; undefined when there is no such token. */
  async revokeToken(tokenId: string): Promise<TokenInfo | undefined> {
    const [row] = await this.db.delete(apiTokens).where(eq(apiTokens.id, tokenId)).returning(tokenColumns);
    if (row === undefined) return undefined;
    this.byToken.invalidate(row.appId, tokenId);
    return row;
  }

  /** Called on every node when a token is revoked (after it is forgotten). */
  onRevoked(listener: (tokenId: string) => void): void {
    on(this.bus, internal.tokenRevoked, (_appId, tokenId) => listener(tokenId));
  }

  /** Called when the bus is back after an outage: revocations made meanwhile may never arrive. */
  onRevocationsMissed(listener: () => void): void {
    this.bus.onReconnect(listener);
  }

  /** Of these token ids, the ones that still exist. */
  async existingTokenIds(ids: string[]): Promise<Set<string>> {
    const rows = await this.db.select({ id: apiTokens.id }).from(apiTokens).where(inArray(apiTokens.id, ids));
    return new Set(rows.map((row) => row.id));
  }

  async get(appId: string): Promise<Application | undefined> {
    const cached = this.byId.get(appId);
    if (cached !== undefined) return cached;
    const [row] = await this.db.select().from(applications).where(eq(applications.id, appId));
    if (row !== undefined) this.byId.set(appId, row);
    return row;
  }

  /** The remembered credential of `token` if it is `appId`'s; null if it is another app's; undefined if not remembered. */
  cached(appId: string, token: string): Credential | null | undefined {
    const cached = this.byToken.peek(token);
    if (cached === undefined) return undefined;
    return cached.app.id === appId ? cached : null;
  }

  /** The token's credential, if the token is `appId`'s; undefined otherwise. */
  async authenticate(appId: string, token: string): Promise<Credential | undefined> {
    const cached = this.cached(appId, token);
    if (cached !== undefined) return cached ?? undefined;
    if (this.unknownTokens.has(token)) return undefined;
    const credential = await this.byToken.load(token, () => this.verify(token));
    return credential?.app.id === appId ? credential : undefined;
  }

  /** Up to `limit` applications after the id `after` ('' for the first), oldest first (ids are time-ordered). */
  async list(after: string, limit: number): Promise<Application[]> {
    return this.db.select().from(applications).where(gt(applications.id, after)).orderBy(asc(applications.id)).limit(limit);
  }

  async count(): Promise<number> {
    const [row] = await this.db.select({ n: count() }).from(applications);
    return row?.n ?? 0;
  }

  private async verify(token: string): Promise<Credential | undefined> {
    const [row] = await this.db
      .select({ id: apiTokens.id, appId: apiTokens.appId, scope: apiTokens.scope })
      .from(apiTokens)
      .where(eq(apiTokens.tokenHash, hashToken(token)));
    if (row === undefined) {
      this.unknownTokens.add(token);
      return undefined;
    }
    const app = await this.get(row.appId);
    return app === undefined ? undefined : { id: row.id, app, scope: row.scope };
  }
}
