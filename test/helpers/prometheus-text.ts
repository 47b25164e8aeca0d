/**
 * Reads the Prometheus text exposition format, for tests that assert exact counter values:
 * one sample per line, `name{label="value",...} number`.
 */
export interface PrometheusSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE_LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parsePrometheusText(text: string): PrometheusSample[] {
  const samples: PrometheusSample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = SAMPLE_LINE.exec(line);
    if (match === null) throw new Error(`Not a Prometheus sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const label of (match[2] ?? '').matchAll(LABEL)) labels[label[1] ?? ''] = (label[2] ?? '').replace(/\\(.)/g, '$1');
    samples.push({ name: match[1] ?? '', labels, value: Number(match[3]) });
  }
  return samples;
}

/** The value of the one sample with exactly these labels; 0 when there is none (a counter never incremented). */
export function sampleValue(samples: readonly PrometheusSample[], name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels);
  const found = samples.filter(
    (sample) => sample.name === name && Object.keys(sample.labels).length === wanted.length && wanted.every(([key, value]) => sample.labels[key] === value),
  );
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value ?? 0;
}

/** Every sample of `name`, for messages. */
export function describeSamples(samples: readonly PrometheusSample[], name: string): string {
  return samples
    .filter((sample) => sample.name === name)
    .map((sample) => `${JSON.stringify(sample.labels)} ${sample.value}`)
    .join('\n');
}
