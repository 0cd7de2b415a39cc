import type { Metric, MetricValueWithName, Registry } from 'prom-client';

/**
 * Metric families whose series are plain objects the hot paths keep and bump: recording is a
 * field update (a histogram also walks its bounds), with no label objects, hashing or checks per
 * call, as prom-client's own children do. The registry reads them when /metrics is scraped;
 * prom-client formats them (and adds up a worker thread's values, see threads.ts).
 */

/** A counter's or gauge's series. */
export class ValueCell {
  value = 0;

  inc(n = 1): void {
    this.value += n;
  }

  dec(n = 1): void {
    this.value -= n;
  }
}

/** A histogram's series: per-bucket counts (not cumulative until read), sum and count. */
export class HistogramCell {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(private readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length);
  }

  observe(value: number): void {
    let i = 0;
    while (i < this.bounds.length && value > (this.bounds[i] as number)) i++;
    if (i < this.counts.length) this.counts[i] = (this.counts[i] as number) + 1;
    this.sum += value;
    this.count += 1;
  }
}

type Type = 'counter' | 'gauge' | 'histogram';
/** What the registry reads from a metric (prom-client's MetricObjectWithValues, without collect). */
interface Values {
  name: string;
  help: string;
  type: Type;
  aggregator: 'sum';
  values: MetricValueWithName<string>[];
}

abstract class Family<Cell> {
  readonly aggregator = 'sum';
  private readonly series = new Map<string, { labels: Record<string, string>; cell: Cell }>();

  constructor(
    registry: Registry,
    readonly name: string,
    readonly help: string,
    readonly type: Type,
    private readonly labelNames: readonly string[],
  ) {
    // The registry takes any object with name, help, type, aggregator, get() and reset().
    registry.registerMetric(this as unknown as Metric);
  }

  /** The series with these label values (in labelNames order), made once: keep it. */
  cell(...values: string[]): Cell {
    const key = values.join('\u0000');
    let found = this.series.get(key);
    if (found === undefined) {
      found = { labels: Object.fromEntries(this.labelNames.map((name, i) => [name, values[i] ?? ''])), cell: this.newCell() };
      this.series.set(key, found);
    }
    return found.cell;
  }

  get(): Values {
    const values: MetricValueWithName<string>[] = [];
    for (const { labels, cell } of this.series.values()) this.read(labels, cell, values);
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  /** Zeroes every series (their holders keep them). */
  reset(): void {
    for (const { cell } of this.series.values()) this.zero(cell);
  }

  protected abstract newCell(): Cell;
  protected abstract zero(cell: Cell): void;
  protected abstract read(labels: Record<string, string>, cell: Cell, into: MetricValueWithName<string>[]): void;
}

export class ValueFamily extends Family<ValueCell> {
  protected newCell(): ValueCell {
    return new ValueCell();
  }

  protected zero(cell: ValueCell): void {
    cell.value = 0;
  }

  protected read(labels: Record<string, string>, cell: ValueCell, into: MetricValueWithName<string>[]): void {
    into.push({ metricName: this.name, labels, value: cell.value });
  }
}

export class HistogramFamily extends Family<HistogramCell> {
  constructor(
    registry: Registry,
    name: string,
    help: string,
    labelNames: readonly string[],
    private readonly bounds: readonly number[],
  ) {
    super(registry, name, help, 'histogram', labelNames);
  }

  protected newCell(): HistogramCell {
    return new HistogramCell(this.bounds);
  }

  protected zero(cell: HistogramCell): void {
    cell.counts.fill(0);
    cell.sum = 0;
    cell.count = 0;
  }

  protected read(labels: Record<string, string>, cell: HistogramCell, into: MetricValueWithName<string>[]): void {
    let cumulative = 0;
    this.bounds.forEach((bound, i) => {
      cumulative += cell.counts[i] as number;
      into.push({ metricName: `${this.name}_bucket`, labels: { ...labels, le: bound }, value: cumulative });
    });
    into.push({ metricName: `${this.name}_bucket`, labels: { ...labels, le: '+Inf' }, value: cell.count });
    into.push({ metricName: `${this.name}_sum`, labels, value: cell.sum });
    into.push({ metricName: `${this.name}_count`, labels, value: cell.count });
  }
}
