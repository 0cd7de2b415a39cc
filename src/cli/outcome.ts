import { RestoreRefused } from '../backup/refusal.js';
import type { RestoreSummary } from '../backup/restore.js';

/** Ends a command with `message` on standard error and `code`. */
export function fail(message: string, code: number): never {
  process.stderr.write(message.endsWith('\n') ? message : `${message}\n`);
  process.exit(code);
}

/** What a restore or a move reports at its end: the rows of every table, as the target now holds them. */
export function report(summary: RestoreSummary, into: string): void {
  const lines = summary.manifest.tables.map((t) => `  ${t.name}: ${t.rows.toLocaleString('en')}`);
  const forward = summary.migratedForward > 0 ? `, then ${summary.migratedForward} newer migrations applied` : '';
  process.stdout.write(`Restored into ${into} the backup made ${summary.manifest.made} (${summary.manifest.source})${forward}. Rows by table:\n${lines.join('\n')}\n`);
}

/** A refusal is the operator's to read; anything else failed, and still changed nothing. */
export function failed(err: unknown): never {
  if (err instanceof RestoreRefused) return fail(err.message, 1);
  return fail(`Failed, nothing was changed: ${(err as Error).message}`, 1);
}
