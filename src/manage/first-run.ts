import type { Config } from '../config.js';
import type { RunningServer } from '../server.js';

/**
 * Secrets a newcomer needs are written once to standard error, deliberately not through the
 * logger (logs carry no secrets) and apart from its JSON lines on standard output: a generated
 * manage token, and on the embedded default's first start an application with its token, so the
 * API can be called at once.
 */
export async function announceFirstRun(server: RunningServer, config: Config): Promise<void> {
  const lines: string[] = [];
  if (config.manageToken === undefined) lines.push(`MANAGE_TOKEN (generated for this run; set it to keep one): ${server.manageToken}`);
  const apps = server.core.apps;
  if (server.core.database.kind === 'embedded' && (await apps.count()) === 0) {
    const app = await apps.create({ name: 'default', userReportsLimit: 3, useOrganizationUserDatabase: false, organizationId: undefined });
    const { token } = await apps.createToken(app.id, { name: 'default', scope: 'server', permissions: [] });
    lines.push(`First start: created application "default"`, `  appid: ${app.id}`, `  x-api-token: ${token}`);
    lines.push(`  try: curl -H 'x-api-token: ${token}' http://localhost:${server.port}/api/v3/${app.id}/user/users/`);
  }
  if (lines.length > 0) process.stderr.write(`${lines.join('\n')}\n`);
}
