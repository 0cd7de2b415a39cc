export interface Application {
  id: string;
  name: string;
  userReportsLimit: number;
  useOrganizationUserDatabase: boolean;
  organizationId: string | null;
  userPool: string;
  jwtSecret: string;
  webhookSecret: string;
  added: Date;
}

/** `server`: a backend secret with full power; `client`: safe to ship in a browser or an app. */
export const TOKEN_SCOPES = ['server', 'client'] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

/** A verified API token: whose it is and what it may do. */
export interface Credential {
  id: string;
  app: Application;
  scope: TokenScope;
}

export interface TokenInfo {
  id: string;
  appId: string;
  name: string;
  scope: TokenScope;
  permissions: string[];
  added: Date;
}

/** A user token (Authorization: Bearer) narrows the caller to that user's rights. */
export interface Actor {
  userid: string;
  role: 'user' | 'moderator' | 'admin';
}
