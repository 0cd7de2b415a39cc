import type { Application } from '../apps/types.js';

export function applicationView(app: Application) {
  return {
    kind: 'app.application',
    appid: app.id,
    name: app.name,
    settings: {
      userreportslimit: app.userReportsLimit,
      useorganizationuserdatabase: app.useOrganizationUserDatabase,
      organizationid: app.organizationId,
    },
    /** Signs user tokens (Authorization: Bearer, HS256). */
    jwtsecret: app.jwtSecret,
    /** Signs webhook deliveries (Standard Webhooks). */
    webhooksecret: app.webhookSecret,
    added: app.added.toISOString(),
  };
}
