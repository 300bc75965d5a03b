import { pino, type Logger } from "pino";

export type { Logger };

/**
 * One JSON line per event. Secrets never reach a log: the redaction list covers the
 * places they could travel through by accident (headers, request bodies, configs).
 */
export function createLogger(service: string, level = process.env.LOG_LEVEL ?? "info"): Logger {
  return pino({
    level,
    base: { service },
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
      ],
      censor: "[redacted]",
    },
  });
}
