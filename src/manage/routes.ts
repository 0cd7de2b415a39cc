import * as v from 'valibot';
import type { Core } from '../core.js';
import { badRequest, notFound } from '../errors.js';
import { TOKEN_SCOPES } from '../apps/types.js';
import { listPayload, pageOf, stringCursor } from '../http/cursor.js';
import { choice, flag, integer, paging, requiredText, stringList, text } from '../http/fields.js';
import { ok, param, route, type RouteDef } from '../http/route.js';
import { applicationSummaryView, applicationView, tokenView } from './views.js';

const CreateApplication = v.object({
  name: requiredText(200),
  userreportslimit: v.optional(integer(0, 1_000_000), 3),
  useorganizationuserdatabase: v.optional(flag(), false),
  organizationid: v.optional(text(200)),
});

const Paging = v.object(paging(50, 200));

const CreateToken = v.object({
  applicationid: requiredText(200),
  name: v.optional(text(200), 'default'),
  scope: v.optional(choice(TOKEN_SCOPES), 'server'),
  permissions: v.optional(stringList(100), []),
});

const ListTokens = v.object({ applicationid: requiredText(200) });

export function manageRoutes(core: Core): RouteDef[] {
  const requireApp = async (appId: string) => {
    const app = await core.apps.get(appId);
    if (app === undefined) throw notFound(`Application ${appId} not found.`);
    return app;
  };
  return [
    route({
      method: 'POST',
      path: 'createapplication',
      scope: 'manage',
      body: CreateApplication,
      handler: async ({ body }) => {
        const organizationId = body.organizationid?.trim() || undefined;
        if (body.useorganizationuserdatabase && organizationId === undefined) {
          throw badRequest('A shared user database needs an organizationid.', { organizationid: 'is required when useorganizationuserdatabase is true' });
        }
        const app = await core.apps.create({
          name: body.name,
          userReportsLimit: body.userreportslimit,
          useOrganizationUserDatabase: body.useorganizationuserdatabase,
          organizationId,
        });
        return ok(applicationView(app), 'Application created.');
      },
    }),
    route({
      method: 'GET',
      path: 'applications',
      scope: 'manage',
      query: Paging,
      handler: async ({ query }) => {
        const rows = await core.apps.list(stringCursor(query.cursor) ?? '', query.limit + 1);
        const { items, next } = pageOf(rows, query.limit, (app) => app.id);
        return ok(listPayload('list.applications', 'applications', items.map(applicationSummaryView), next));
      },
    }),
    route({
      method: 'GET',
      path: 'applications/:appid',
      scope: 'manage',
      handler: async ({ params }) => ok(applicationView(await requireApp(param(params, 'appid')))),
    }),
    route({
      method: 'POST',
      path: 'createtoken',
      scope: 'manage',
      body: CreateToken,
      handler: async ({ body }) => {
        const app = await requireApp(body.applicationid);
        const { token, info } = await core.apps.createToken(app.id, { name: body.name, scope: body.scope, permissions: body.permissions });
        return ok({ ...tokenView(info), token }, 'Token created.');
      },
    }),
    route({
      method: 'GET',
      path: 'tokens',
      scope: 'manage',
      query: ListTokens,
      handler: async ({ query }) => {
        const app = await requireApp(query.applicationid);
        const tokens = (await core.apps.listTokens(app.id)).map(tokenView);
        return ok({ kind: 'list.app.tokens', applicationid: app.id, itemcount: tokens.length, tokens });
      },
    }),
    route({
      method: 'DELETE',
      path: 'tokens/:tokenid',
      scope: 'manage',
      handler: async ({ params }) => {
        const revoked = await core.apps.revokeToken(param(params, 'tokenid'));
        if (revoked === undefined) throw notFound(`Token ${param(params, 'tokenid')} not found.`);
        return ok({ kind: 'deleted.app.token', token: tokenView(revoked) }, 'Token revoked.');
      },
    }),
  ];
}
