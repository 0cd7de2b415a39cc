import { Worker } from 'node:worker_threads';

/** What a long copy tells as it goes: the rows it will copy, those it has, and what it is doing. */
export interface Progress {
  begin(totalRows: number): void;
  add(rows: number): void;
  phase(text: string): void;
  /** Stops telling (a last line says how it ended). */
  end(outcome: string): Promise<void>;
}

/** How often a line is written at most. */
const EVERY_MS = 2_000;
const PHASE_BYTES = 512;
/** Slots of the shared counters: rows done, rows in all, how long the phase text is. */
const DONE = 0;
const TOTAL = 1;
const PHASE_LENGTH = 2;

/**
 * The reporter runs on a thread of its own, reading counters the copy updates in shared memory:
 * PGlite runs on the thread that calls it, and an index built over a million rows keeps that
 * thread busy for many seconds, during which its own timers could not fire. It writes to the file
 * descriptor itself: a worker's process.stderr passes through the main thread.
 */
const REPORTER = `
const { workerData } = require('node:worker_threads');
const { writeSync } = require('node:fs');
const counters = new Float64Array(workerData.counters);
const phase = new Uint8Array(workerData.phase);
const started = Date.now();
setInterval(() => {
  const done = counters[${DONE}], total = counters[${TOTAL}];
  const text = Buffer.from(phase.slice(0, counters[${PHASE_LENGTH}])).toString();
  const percent = total > 0 ? Math.min(100, Math.floor((done / total) * 100)) : 0;
  const seconds = Math.round((Date.now() - started) / 1000);
  writeSync(2, workerData.label + ': ' + done.toLocaleString('en') + ' of ' + total.toLocaleString('en') + ' rows (' + percent + '%), ' + text + ', ' + seconds + ' s\\n');
}, ${EVERY_MS});
`;

/** Progress lines on standard error, prefixed with `label` ("restore", "move"), every EVERY_MS. */
export function progressLines(label: string): Progress {
  const counters = new Float64Array(new SharedArrayBuffer(3 * Float64Array.BYTES_PER_ELEMENT));
  const phaseBytes = new Uint8Array(new SharedArrayBuffer(PHASE_BYTES));
  const worker = new Worker(REPORTER, { eval: true, workerData: { counters: counters.buffer, phase: phaseBytes.buffer, label } });
  worker.unref();
  const started = Date.now();
  const progress: Progress = {
    begin(totalRows) {
      counters[TOTAL] = totalRows;
    },
    add(rows) {
      counters[DONE] = (counters[DONE] as number) + rows;
    },
    phase(text) {
      const bytes = Buffer.from(text).subarray(0, PHASE_BYTES);
      phaseBytes.set(bytes);
      counters[PHASE_LENGTH] = bytes.length;
    },
    async end(outcome) {
      await worker.terminate();
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      process.stderr.write(`${label}: ${outcome}: ${(counters[DONE] as number).toLocaleString('en')} rows in ${seconds} s\n`);
    },
  };
  progress.phase('starting');
  return progress;
}
