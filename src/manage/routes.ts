import * as v from 'valibot';
import type { Core } from '../core.js';
import { badRequest, notFound } from '../http/errors.js';
import { listPayload, pageOf, stringCursor } from '../http/cursor.js';
import { flag, integer, paging, requiredText, stringList, text } from '../http/fields.js';
import { ok, route, type RouteDef } from '../http/route.js';
import { applicationSummaryView, applicationView } from './views.js';

const CreateApplication = v.object({
  name: requiredText(200),
  userreportslimit: v.optional(integer(0, 1_000_000), 0),
  useorganizationuserdatabase: v.optional(flag(), false),
  organizationid: v.optional(text(200)),
});

const Paging = v.object(paging(50, 200));

const CreateToken = v.object({
  applicationid: requiredText(200),
  name: v.optional(text(200), 'default'),
  permissions: v.optional(stringList(100), []),
});

export function manageRoutes(core: Core): RouteDef[] {
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
      handler: async ({ params }) => {
        const app = await core.apps.get(params.appid as string);
        if (app === undefined) throw notFound(`Application ${params.appid} not found.`);
        return ok(applicationView(app));
      },
    }),
    route({
      method: 'POST',
      path: 'createtoken',
      scope: 'manage',
      body: CreateToken,
      handler: async ({ body }) => {
        const app = await core.apps.get(body.applicationid);
        if (app === undefined) throw notFound(`Application ${body.applicationid} not found.`);
        const token = await core.apps.createToken(app.id, body.name, body.permissions);
        return ok({ kind: 'app.token', applicationid: app.id, name: body.name, permissions: body.permissions, token }, 'Token created.');
      },
    }),
  ];
}
