import { route, type RouteDef } from '../http/route.js';
import type { Backups } from './service.js';

export function backupRoutes(backups: Backups): RouteDef[] {
  return [
    route({
      method: 'POST',
      path: 'backups',
      scope: 'manage',
      errors: [409, 500],
      handler: async () => {
        const backup = await backups.start();
        return { data: null, stream: { contentType: 'application/gzip', headers: [['content-disposition', `attachment; filename="${backup.name}"`]], body: backup.body } };
      },
    }),
  ];
}
