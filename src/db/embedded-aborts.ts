import type { Extension, PGlite } from '@electric-sql/pglite';

/** What every statement throws once the embedded database has aborted: SQLSTATE 57P02 (crash_shutdown), so requests are answered 503. */
export class EmbeddedDatabaseAborted extends Error {
  readonly code = '57P02';

  constructor(readonly what: string) {
    super(`The embedded database aborted (a Postgres PANIC: ${what}). It cannot go on in this process; started again, it replays its WAL and loses nothing acknowledged (docs/storage.md).`);
  }
}

/** Postgres' own line for a PANIC, as it writes it to standard error. */
const PANIC_LINE = /PANIC:\s+(.*)/;

/**
 * PGlite is Postgres in one process. Where a Postgres backend PANICs (a WAL file it could not
 * write on a full disk) and the postmaster starts it again, PGlite's WebAssembly aborts, PGlite
 * swallows the abort and carries on in the broken state: the next statement spins on a lock
 * the PANIC left held, at 100% of a core, and the event loop never turns again (no request
 * answered, SIGTERM ignored). Seen with the disk full: `PANIC: could not write to file
 * "pg_wal/xlogtemp.42": No space left on device`, then `CommitTransaction while in COMMIT state`,
 * then the spin. StorageGuard keeps the database from meeting a full disk; this is for whatever
 * PANIC still comes. PGlite lets an extension set Emscripten's options, so `extension` hears the
 * abort (`onStderr`, as PGlite's option, keeps the PANIC's message for it); `guard` then makes
 * every later statement on `client` throw EmbeddedDatabaseAborted at once, before it reaches
 * the WebAssembly, and `onAbort` is told.
 */
export function abortWatch(onAbort: (err: EmbeddedDatabaseAborted) => void): {
  extension: Extension;
  onStderr: (text: string) => boolean;
  guard: (client: PGlite) => void;
} {
  let aborted: EmbeddedDatabaseAborted | undefined;
  let panic = 'no message';
  const extension: Extension = {
    name: 'engage-abort-watch',
    setup: async (_pg, emscriptenOpts: Record<string, unknown>) => ({
      emscriptenOpts: {
        ...emscriptenOpts,
        onAbort: () => {
          if (aborted !== undefined) return;
          aborted = new EmbeddedDatabaseAborted(panic);
          onAbort(aborted);
        },
      },
    }),
  };
  const onStderr = (text: string) => {
    panic = PANIC_LINE.exec(text)?.[1] ?? panic;
    return false;
  };
  const guard = (client: PGlite) => {
    const run = client.execProtocolRawSync.bind(client);
    client.execProtocolRawSync = (message) => {
      if (aborted !== undefined) throw aborted;
      return run(message);
    };
  };
  return { extension, onStderr, guard };
}
