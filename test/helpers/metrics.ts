/**
 * Reads Prometheus text exposition (what GET /metrics answers) into samples, so tests assert on
 * values by name and labels rather than on lines.
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = LINE.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, name, value] of (match[2] ?? '').matchAll(LABEL)) labels[name!] = value!.replace(/\\(.)/g, '$1');
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** Samples as a lookup: the value of the series with exactly these labels (undefined when absent). */
export class Scrape {
  readonly samples: Sample[];
  constructor(readonly text: string) {
    this.samples = parseMetrics(text);
  }

  value(name: string, labels: Record<string, string> = {}): number | undefined {
    const wanted = Object.entries(labels);
    const found = this.samples.find(
      (sample) => sample.name === name && Object.keys(sample.labels).length === wanted.length && wanted.every(([key, value]) => sample.labels[key] === value),
    );
    return found?.value;
  }

  /** Every series of a metric. */
  series(name: string): Sample[] {
    return this.samples.filter((sample) => sample.name === name);
  }

  /** Whether the exposition declares the metric (a `# TYPE` line), with or without samples. */
  declares(name: string): boolean {
    return this.text.includes(`# TYPE ${name} `);
  }
}
