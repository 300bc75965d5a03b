import { Writable } from "node:stream";
import { pino, type Logger } from "pino";

/**
 * A logger at `info` whose lines land in `lines`, parsed, so a test can assert what an
 * operator would read. `labels` writes the level as its name ("warn") instead of pino's
 * number.
 */
export function capturingLogger<T = Record<string, any>>(lines: T[], options: { labels?: boolean } = {}): Logger {
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n")) if (line.trim()) lines.push(JSON.parse(line));
      done();
    },
  });
  return pino({ level: "info", ...(options.labels ? { formatters: { level: (label: string) => ({ level: label }) } } : {}) }, sink);
}
