import { PassThrough } from 'node:stream';
import { dump } from './dump.js';
import { backupText } from './file.js';
import { describePlace, intoPlace, openPlace, type Place } from './places.js';
import { type Progress, progressLines } from './progress.js';
import { RestoreRefused } from './refusal.js';
import { appliedMigrations, schemaPlan } from './migrations.js';
import { checkBackup, restoreInto, type RestoreSummary } from './restore.js';

/** `npm run restore`: a backup file into an empty place, progress on standard error. */
export async function restoreFile(path: string, to: Place, replace: boolean): Promise<RestoreSummary> {
  // The file read whole first: a damaged one is refused before the target is touched.
  await withProgress('check', async (progress) => checkBackup(await backupText(path), progress));
  const text = await backupText(path);
  return withProgress('restore', (progress) => intoPlace(to, replace, (session) => restoreInto(session, text, progress)));
}

/** Bytes of a move's text held between the source's reading and the target's loading. */
const MOVE_BUFFER_BYTES = 4 * 1024 * 1024;

/**
 * `npm run move`: the database at `from` into an empty place, through the same text a backup file
 * holds (dumped and restored at once, never written out): one path for every direction.
 */
export async function move(from: Place, to: Place, replace: boolean): Promise<RestoreSummary> {
  if (describePlace(from) === describePlace(to)) throw new RestoreRefused('The source and the target are the same database.');
  const source = await openPlace(from);
  try {
    // A source this version cannot take is refused before the target is touched.
    schemaPlan(await appliedMigrations(source), 'The database');
  } catch (err) {
    await source.close();
    throw err;
  }
  const text = new PassThrough({ highWaterMark: MOVE_BUFFER_BYTES });
  // Either side's failure reaches the other through the stream and is reported by the promises below.
  text.on('error', () => undefined);
  try {
    return await withProgress('move', async (progress) => {
      let dumpFailure: unknown;
      const dumping = dump(source, text).then(
        () => text.end(),
        (err: unknown) => {
          dumpFailure = err;
          text.destroy(err as Error);
        },
      );
      const restored = await intoPlace(to, replace, (session) => restoreInto(session, text, progress)).catch(async (err: unknown) => {
        // A target refused before it read anything leaves the source waiting to write: it stops.
        text.destroy(err as Error);
        await dumping;
        throw dumpFailure ?? err;
      });
      await dumping;
      return restored;
    });
  } finally {
    await source.close();
  }
}

async function withProgress<T>(label: string, work: (progress: Progress) => Promise<T>): Promise<T> {
  const progress = progressLines(label);
  try {
    const summary = await work(progress);
    await progress.end('done');
    return summary;
  } catch (err) {
    await progress.end('stopped');
    throw err;
  }
}
