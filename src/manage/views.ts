import type { Application, TokenInfo } from '../apps/types.js';

/** An application as lists show it: without its secrets. */
export function applicationSummaryView(app: Application) {
  return {
    kind: 'app.application',
    appid: app.id,
    name: app.name,
    settings: {
      userreportslimit: app.userReportsLimit,
      useorganizationuserdatabase: app.useOrganizationUserDatabase,
      organizationid: app.organizationId,
    },
    added: app.added.toISOString(),
  };
}

export function applicationView(app: Application) {
  return {
    ...applicationSummaryView(app),
    /** Signs user tokens (Authorization: Bearer, HS256). */
    jwtsecret: app.jwtSecret,
    /** Signs webhook deliveries (Standard Webhooks). */
    webhooksecret: app.webhookSecret,
  };
}

/** A token as listed: never the secret itself (it is shown once, by createtoken). */
export function tokenView(t: TokenInfo) {
  const added = t.added.toISOString();
  return { kind: 'app.token', id: t.id, applicationid: t.appId, name: t.name, scope: t.scope, permissions: t.permissions, added, created: added };
}
