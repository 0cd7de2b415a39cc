import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// docs/areas.md's rules, read from the import statements of the source: a change that hands
// `Core` to a service, or lets a route query a store, fails here.

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const AREAS = ['chat', 'comments', 'polls', 'webhooks'];
const RULED = [...AREAS, 'telemetry'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The files a source file imports, as paths relative to src/ (relative imports only). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:^import|^export)[^'"]*?from\s+'(\.[^']+)'/gms), ...text.matchAll(/import\('(\.[^']+)'\)/g)].map((m) => m[1] as string);
  return specifiers.map((s) =>
    relative(SRC, resolve(dirname(file), s))
      .replace(/\.js$/, '.ts')
      .split(sep)
      .join('/'),
  );
}

const inArea = (area: string) => sourceFiles(join(SRC, area)).map((f) => ({ path: relative(SRC, f).split(sep).join('/'), imports: importsOf(f) }));

/** Where requests come in: HTTP routes and client frame handlers (`*-frame.ts`). */
const isEdge = (path: string) => /\/routes(\/|\.ts$)|-frame\.ts$/.test(path);
const isStore = (path: string) => /(\/store(\/|\.ts$)|-store\.ts$)/.test(path);
const isWiring = (area: string, path: string) => path === `${area}/area.ts`;
/** A sub-area (chat's moderation) is wired by an area.ts of its own, from narrow dependencies its parent hands it. */
const isSubAreaWiring = (path: string) => path.endsWith('/area.ts');
const HTTP_ONLY = ['http/route.ts', 'http/auth.ts'];

describe.each(RULED)('the %s area', (area) => {
  const files = inArea(area);

  it('is wired in area.ts alone: no other file receives Core', () => {
    const holders = files.filter((f) => !isWiring(area, f.path) && f.imports.includes('core.ts')).map((f) => f.path);
    expect(holders).toEqual([]);
  });

  it('has routes that call services, never a store or the database', () => {
    const reaching = files.filter((f) => isEdge(f.path)).flatMap((f) => f.imports.filter((i) => isStore(i) || i.startsWith('db/')).map((i) => `${f.path} -> ${i}`));
    expect(reaching).toEqual([]);
  });

  it('keeps HTTP out of its services, stores and views', () => {
    const leaking = files.filter((f) => !isEdge(f.path) && !isSubAreaWiring(f.path)).flatMap((f) => f.imports.filter((i) => HTTP_ONLY.includes(i)).map((i) => `${f.path} -> ${i}`));
    expect(leaking).toEqual([]);
  });

  it('imports no other area', () => {
    const crossing = files.flatMap((f) => f.imports.filter((i) => RULED.some((other) => other !== area && i.startsWith(`${other}/`))).map((i) => `${f.path} -> ${i}`));
    expect(crossing).toEqual([]);
  });
});

describe.each(AREAS)('the %s folder', (area) => {
  const has = (...candidates: string[]) => candidates.some((c) => existsSync(join(SRC, area, c)));

  it('has every part of the anatomy', () => {
    const missing = [
      has('area.ts') ? '' : 'area.ts',
      has('routes.ts', 'routes') ? '' : 'routes',
      has('schemas.ts') ? '' : 'schemas.ts',
      has('service.ts', 'services') ? '' : 'service(s)',
      has('store.ts', 'store') ? '' : 'store',
      has('types.ts') ? '' : 'types.ts',
      has('views.ts') ? '' : 'views.ts',
    ].filter((part) => part !== '');
    expect(missing).toEqual([]);
  });
});
