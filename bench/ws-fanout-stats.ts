import { readFileSync } from 'node:fs';

/** Resident memory of a process in bytes (Linux /proc). */
export function rssBytes(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number.parseInt(line?.replace(/\D+/g, '') ?? '0', 10) * 1024;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

/** Latency samples in ms, kept up to a fixed count. */
export class Samples {
  private readonly values: Float64Array;
  private size = 0;

  constructor(capacity = 2_000_000) {
    this.values = new Float64Array(capacity);
  }

  add(ms: number): void {
    if (this.size < this.values.length) this.values[this.size++] = ms;
  }

  clear(): void {
    this.size = 0;
  }

  summary(): { count: number; p50: number; p99: number; max: number } {
    const sorted = this.values.slice(0, this.size).sort();
    return { count: this.size, p50: round(percentile(sorted, 50)), p99: round(percentile(sorted, 99)), max: round(sorted[sorted.length - 1] ?? Number.NaN) };
  }
}

export const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;
export const now = () => performance.timeOrigin + performance.now();
