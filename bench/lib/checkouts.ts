import { resolve } from 'node:path';

/** The checkouts a before/after bench runs, from CHECKOUTS=name=path,name=path (default: this one). */
export function checkoutsFromEnv(): { name: string; root: string }[] {
  return (process.env['CHECKOUTS'] ?? 'this=.').split(',').map((spec) => {
    const [name = '', where = '.'] = spec.split('=');
    return { name, root: resolve(where) };
  });
}

/** The order of round `round`'s turns (rounds counted from 0): alternating, so that no one always goes first on a shared machine. */
export function turnOrder<T>(items: T[], round: number): T[] {
  return round % 2 === 0 ? items : [...items].reverse();
}
