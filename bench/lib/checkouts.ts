import { resolve } from 'node:path';

/** The checkouts a before/after bench runs, from CHECKOUTS=name=path,name=path (default: this one). */
export function checkoutsFromEnv(): { name: string; root: string }[] {
  return (process.env['CHECKOUTS'] ?? 'this=.').split(',').map((spec) => {
    const [name = '', where = '.'] = spec.split('=');
    return { name, root: resolve(where) };
  });
}
