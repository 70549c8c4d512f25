/** One sample of a Prometheus text page: `name{label="value",…} 12`. */
export interface PromSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Every sample of a text-format page (comments and malformed lines skipped). */
export function parsePrometheus(page: string): PromSample[] {
  const out: PromSample[] = [];
  for (const line of page.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = LINE.exec(line);
    if (!m) continue;
    const value = Number(m[3]);
    if (!Number.isFinite(value)) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(LABEL)) labels[l[1]] = l[2];
    out.push({ name: m[1], labels, value });
  }
  return out;
}

/** The sum of `name`'s samples whose labels pass `where` (every sample when omitted); 0 when none. */
export function sumSamples(samples: readonly PromSample[], name: string, where: (labels: Record<string, string>) => boolean = () => true): number {
  return samples.reduce((sum, s) => (s.name === name && where(s.labels) ? sum + s.value : sum), 0);
}

/** The `/metrics` pages of these local ports ('' for one that does not answer within 5 s). */
export async function scrapePages(ports: readonly number[]): Promise<string[]> {
  return Promise.all(
    ports.map(async (port) => {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(5000) });
        return res.ok ? await res.text() : '';
      } catch {
        return '';
      }
    }),
  );
}
