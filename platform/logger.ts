import { pino, type DestinationStream, type Logger, type LoggerOptions } from "pino";
import { traceLogFields } from "./tracing.js";

export type { Logger };

/**
 * One JSON line per event. Secrets never reach a log: the redaction list covers the
 * places they could travel through by accident (headers, request bodies, configs).
 * A line written inside a trace carries its `trace_id` and `span_id` (tracing.ts).
 */
export function createLogger(service: string, level = process.env.LOG_LEVEL ?? "info", destination?: DestinationStream): Logger {
  const options: LoggerOptions<never> = {
    level,
    base: { service },
    mixin: traceLogFields,
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: {
      paths: [
        "authorization",
        "*.authorization",
        "headers.authorization",
        "*.headers.authorization",
        "secret",
        "*.secret",
        "key",
        "*.key",
        "DATABASE_URL",
        "MIDTRANS_SERVER_KEY",
        "WEBHOOK_SECRET_KEY",
        "INTERNAL_TOKEN",
      ],
      censor: "[redacted]",
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

/**
 * Where `npm start` logs when LOG_LEVEL is not set: every line to `file` (appended, so
 * earlier runs stay readable) and only warnings and worse to the terminal as well, so
 * the start banner is the last thing a newcomer reads there. Both stay JSON lines.
 */
export function fileAndTerminalDestination(file: string): DestinationStream {
  return pino.multistream([
    { level: "trace", stream: pino.destination({ dest: file, mkdir: true, append: true, sync: true }) },
    { level: "warn", stream: pino.destination({ dest: 1, sync: true }) },
  ]);
}
