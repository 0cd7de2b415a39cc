import { spawn } from 'node:child_process';

const ROOT = new URL('../..', import.meta.url).pathname;

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The JSON object of the last line of standard output. */
  summary(): Record<string, unknown>;
}

/** Runs `npm run loadtest -- …args` (its script, without npm) and waits for it to end; `onStderr` sees its progress as it comes. */
export function runLoadtest(args: string[], onStderr?: (text: string) => void): Promise<Finished> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/loadtest.ts', ...args], { cwd: ROOT });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
    onStderr?.(d.toString());
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr, summary: () => lastJson(stdout, stderr) })));
}

/** The JSON object of the output's last line; when there is none (the run died), an error carrying what the run printed. */
function lastJson(stdout: string, stderr: string): Record<string, unknown> {
  const last = stdout.trimEnd().split('\n').at(-1) ?? '';
  try {
    return JSON.parse(last) as Record<string, unknown>;
  } catch {
    throw new Error(`the load test printed no summary line\n--- stdout\n${stdout}\n--- stderr\n${stderr}`);
  }
}
