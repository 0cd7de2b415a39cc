import * as v from 'valibot';
import type { Core } from '../core.js';
import { badRequest, notFound } from '../http/errors.js';
import { flag, integer, requiredText, stringList, text } from '../http/fields.js';
import { ok, route, type RouteDef } from '../http/route.js';
import { applicationView } from './views.js';

const CreateApplication = v.object({
  name: requiredText(200),
  userreportslimit: v.optional(integer(0, 1_000_000), 3),
  useorganizationuserdatabase: v.optional(flag(), false),
  organizationid: v.optional(text(200)),
});

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
