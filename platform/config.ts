import ipaddr from "ipaddr.js";
import { z } from "zod";
import { defaultMidtransApiBaseUrl } from "../common/midtrans.js";
import { INTERNAL_TOKEN_PATTERN } from "./rpc-auth.js";

// Durations are written the way operators write them: "500ms", "5s", "5m", "2h", "1d".
const durationPattern = /^(\d+)(ms|s|m|h|d)$/;
const unitMs = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

export function parseDuration(text: string): number {
  const match = durationPattern.exec(text.trim());
  if (!match) throw new Error(`not a duration: "${text}" (use e.g. 500ms, 5s, 5m, 2h)`);
  return Number(match[1]) * unitMs[match[2] as keyof typeof unitMs];
}

const duration = z.string().transform((text, ctx) => {
  try {
    return parseDuration(text);
  } catch (error) {
    ctx.addIssue({ code: "custom", message: (error as Error).message });
    return z.NEVER;
  }
});

const flag = z
  .enum(["true", "false", "1", "0", "yes", "no", ""])
  .transform((v) => v === "true" || v === "1" || v === "yes");

const url = z.string().url();

// An internal service's address: one base URL, or several separated by commas. The
// roles that dial it spread their calls over every address (platform/rpc-client.ts);
// the role itself listens on it, so there it must be one URL (checked in loadConfig).
const serviceAddress = z.string().transform((text, ctx) => {
  const entries = text.split(",").map((entry) => entry.trim()).filter((entry) => entry !== "");
  if (entries.length === 0) {
    ctx.addIssue({ code: "custom", message: "no URL given (use e.g. http://order:50052)" });
    return z.NEVER;
  }
  for (const entry of entries) {
    // Internal gRPC is cleartext HTTP/2 (h2c): any other scheme could not be dialled.
    if (!URL.canParse(entry) || new URL(entry).protocol !== "http:") {
      ctx.addIssue({ code: "custom", message: `not an http:// URL: "${entry}" (use e.g. http://order:50052, or several separated by commas)` });
      return z.NEVER;
    }
  }
  return entries.join(",");
});

// Reverse proxies trusted to say who the client is (docs/security.md#client-address): a comma list of CIDRs,
// or single addresses, IPv4 or IPv6. Unset or empty trusts none.
const cidrList = z.string().transform((text, ctx) => {
  const entries = text.split(",").map((entry) => entry.trim()).filter((entry) => entry !== "");
  for (const entry of entries) {
    const valid = entry.includes("/")
      ? ipaddr.IPv4.isValidCIDRFourPartDecimal(entry) || ipaddr.IPv6.isValidCIDR(entry)
      : ipaddr.IPv4.isValidFourPartDecimal(entry) || ipaddr.IPv6.isValid(entry);
    if (!valid) {
      ctx.addIssue({ code: "custom", message: `not a CIDR or an address: "${entry}" (use e.g. 10.0.0.0/8,fd00::/8)` });
      return z.NEVER;
    }
  }
  return entries;
});

/** What the sandbox signs with when nothing is set; never a key for real Midtrans. */
export const SANDBOX_SERVER_KEY = "sandbox-server-key";

const schema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  // The gateway's listen address: every interface unless told (127.0.0.1 keeps it local).
  HOST: z.string().min(1).default("0.0.0.0"),
  PUBLIC_BASE_URL: url.optional(),
  DATABASE_URL: z.string().min(1).optional(),
  // Connections each role keeps to PostgreSQL, sized against its max_connections. The
  // reconciliation's four transactions at once need a few beside them.
  DATABASE_POOL_SIZE: z.coerce.number().int().min(6).max(100).default(10),
  DATA_DIR: z.string().min(1).default("./.data"),
  NATS_URL: z.string().min(1).optional(),
  CATALOG_ADDR: serviceAddress.default("http://127.0.0.1:50051"),
  ORDER_ADDR: serviceAddress.default("http://127.0.0.1:50052"),
  WEBHOOK_ADDR: serviceAddress.default("http://127.0.0.1:50053"),
  // How a role calls another's gRPC (platform/rpc-client.ts): the lean unary client of
  // lean-grpc/, or Connect's own Node transport. Measured against each other in bench/README.md.
  RPC_TRANSPORT: z.enum(["lean", "connect"]).default("lean"),
  PAYMENT_GATEWAY: z.enum(["sandbox", "midtrans"]).default("sandbox"),
  MIDTRANS_SERVER_KEY: z.string().min(1).default(SANDBOX_SERVER_KEY),
  MIDTRANS_CLIENT_KEY: z.string().min(1).default("sandbox-client-key"),
  MIDTRANS_BASE_URL: url.default("https://app.sandbox.midtrans.com"),
  // Midtrans's Core API: status, refund and expire calls (docs/refunds.md#when-the-gateway-is-silent).
  // Unset: the Core API host that goes with MIDTRANS_BASE_URL (app.… → api.…), so a
  // production Snap host never sends refunds and status checks to the sandbox.
  MIDTRANS_API_BASE_URL: url.optional(),
  // A pending gateway order with no notification for this long is asked about at the gateway (docs/refunds.md#when-the-gateway-is-silent).
  PAYMENT_STATUS_CHECK_AFTER: duration.default(15 * 60_000),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(300),
  // Failed authentications allowed per client address and minute (slows key guessing).
  AUTH_FAILURES_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(60),
  // Orders a client address may place through payment links per minute (docs/payments.md#payment-links).
  PAYMENT_LINK_ORDERS_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(5),
  TRUST_PROXY: cidrList.default([]),
  WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .default("5s,5m,30m,2h,5h,10h,10h")
    .transform((text, ctx) => {
      try {
        return text.split(",").map(parseDuration);
      } catch (error) {
        ctx.addIssue({ code: "custom", message: (error as Error).message });
        return z.NEVER;
      }
    }),
  WEBHOOK_ALLOW_HTTP: flag.default(false),
  WEBHOOK_ALLOW_PRIVATE: flag.default(false),
  WEBHOOK_SECRET_KEY: z.string().min(1).optional(),
  // How long a rotated-out webhook secret keeps signing (docs/webhooks.md#secrets: 24 h).
  WEBHOOK_ROTATION_OVERLAP: duration.default(24 * 3_600_000),
  // An endpoint whose every attempt has failed for this long is disabled (docs/webhooks.md#failing-endpoints: 5 days).
  WEBHOOK_DISABLE_AFTER: duration.default(5 * 86_400_000),
  // How long every order event is kept in the event log, replayable (docs/webhooks.md#event-log: 30 days).
  EVENT_RETENTION: duration.default(30 * 86_400_000),
  // JetStream stream and durable consumer names (tests give each run its own).
  EVENTS_STREAM: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/).default("ORDER_EVENTS"),
  EVENTS_CONSUMER: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/).default("webhook-delivery"),
  // Core NATS subject base of the catalog's change hints (`<base>.<store id>`), which
  // drop gateways' cached catalog pages (tests give each run its own).
  CATALOG_EVENTS_SUBJECT: z
    .string()
    .max(128)
    .regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/, "dot-separated tokens of letters, digits, _ and -")
    .default("catalog_changes"),
  ORDER_PAYMENT_WINDOW: duration.default(24 * 3_600_000),
  // How long before a pending order expires its buyer is mailed a reminder (docs/payments.md#buyer-mail).
  BUYER_REMINDER_BEFORE: duration.default(3 * 3_600_000),
  // How long a new order's stock hold stays tentative before the catalog's sweep releases
  // it, unless the order service confirms the order was written (docs/catalog.md#stock).
  STOCK_CONFIRM_SECONDS: z.coerce.number().int().min(1).max(86_400).default(120),
  // How long after an order expires (or is cancelled) a transfer of its unique amount
  // still matches it, and its amount stays reserved (docs/reconciliation.md#unique-codes: 7 days).
  BANK_MATCH_GRACE: duration.default(7 * 86_400_000),
  // A gateway payment page may be given a shorter life than its order; a new one is
  // prepared on the next read (unset: the page lives as long as the order).
  PAYMENT_SESSION_TTL: duration.optional(),
  MIDTRANS_TIMEOUT: duration.default(5_000),
  // Where a role serves /metrics, apart from its own port (default: that port + 1000: a
  // service's gRPC port, 50051 → 51051; the gateway's PORT, 8080 → 9080). Under
  // `npm start` one listener there serves every role's.
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  // Where every role's metrics listener binds: loopback unless told (compose: 0.0.0.0,
  // for Prometheus on the compose network). What a process is doing is for operators.
  METRICS_HOST: z.string().min(1).default("127.0.0.1"),
  // The shared secret of internal calls (platform/rpc-auth.ts); `npm start` makes one
  // when unset. The message never repeats the value.
  INTERNAL_TOKEN: z
    .string()
    .regex(INTERNAL_TOKEN_PATTERN, "must be at least 32 characters of A-Z a-z 0-9 - . _ ~ + / (base64 or base64url), e.g. the output of `openssl rand -base64 32`")
    .optional(),
  // Outgoing mail (docs/team.md#mail). Unset: every mail is written to DATA_DIR/mail/*.eml
  // and its path logged. `smtps://` speaks TLS from the start; `smtp://` upgrades with
  // STARTTLS when the server offers it. Credentials go in the URL (user:pass@).
  SMTP_URL: z
    .string()
    .url()
    .refine((text) => /^smtps?:\/\//i.test(text), "must be an smtp:// or smtps:// URL, e.g. smtp://user:pass@host:587")
    .optional(),
  // The From of every mail: an address, or a display name and an address in <>.
  MAIL_FROM: z
    .string()
    .regex(/^(?:[^<>]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/, 'an address, or "Name <address>"')
    .default("Store Order API <no-reply@localhost>"),
  // OpenTelemetry traces over OTLP/HTTP (docs/operations.md#tracing), the standard variable: spans go
  // to <endpoint>/v1/traces (e.g. http://jaeger:4318). Unset: no tracing at all.
  OTEL_EXPORTER_OTLP_ENDPOINT: url.optional(),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
});

export type Config = z.infer<typeof schema> & { PUBLIC_BASE_URL: string; MIDTRANS_API_BASE_URL: string };

/** Every variable the configuration reads. */
export const CONFIG_KEYS: readonly string[] = Object.keys(schema.shape);

/** A configuration that cannot run; `variables` names each variable at fault. */
export class ConfigError extends Error {
  constructor(readonly problems: { variable: string; message: string }[]) {
    super(`invalid configuration: ${problems.map((p) => `${p.variable}: ${p.message}`).join("; ")}`);
    this.name = "ConfigError";
  }

  get variables(): string[] {
    return [...new Set(this.problems.map((p) => p.variable))];
  }
}

/** The addresses each process listens on: a service its own, `npm start` all three. */
const LISTENS_ON: Record<string, readonly ("CATALOG_ADDR" | "ORDER_ADDR" | "WEBHOOK_ADDR")[]> = {
  catalog: ["CATALOG_ADDR"],
  order: ["ORDER_ADDR"],
  webhook: ["WEBHOOK_ADDR"],
  start: ["CATALOG_ADDR", "ORDER_ADDR", "WEBHOOK_ADDR"],
};

/**
 * Rules between variables. Real Midtrans needs its real server key (docs/payments.md#switching-to-midtrans): the
 * sandbox default would sign nothing Midtrans accepts and let anyone who reads this
 * repository forge notifications.
 */
function crossCheck(config: z.infer<typeof schema>, present: Record<string, string | undefined>, role: string | undefined) {
  const problems: { variable: string; message: string }[] = [];
  for (const variable of LISTENS_ON[role ?? ""] ?? []) {
    const count = config[variable].split(",").length;
    if (count > 1) {
      problems.push({
        variable,
        message: `this process listens on it, so it must be one URL, not a list of ${count} (a list is for the processes that dial the service)`,
      });
    }
  }
  // A service beyond loopback without the token would take anyone's word for who acts.
  // (`npm start` makes a token when none is set; the gateway listens on no internal address.)
  if (config.INTERNAL_TOKEN === undefined && role !== "start") {
    for (const variable of LISTENS_ON[role ?? ""] ?? []) {
      // A list is refused above; there is no one host to judge.
      if (config[variable].includes(",")) continue;
      const { host } = listenAddress(config[variable]);
      if (!isLoopbackHost(host)) {
        problems.push({
          variable: "INTERNAL_TOKEN",
          message: `must be set: this service listens on ${host} (${variable}), beyond loopback, where without the token anyone who reaches the port could call it as the operator; give every role the same long random value`,
        });
      }
    }
  }
  if (config.PAYMENT_GATEWAY === "midtrans") {
    if (present.MIDTRANS_SERVER_KEY === undefined) {
      problems.push({ variable: "MIDTRANS_SERVER_KEY", message: "must be set to the Midtrans server key when PAYMENT_GATEWAY=midtrans" });
    } else if (config.MIDTRANS_SERVER_KEY === SANDBOX_SERVER_KEY) {
      problems.push({
        variable: "MIDTRANS_SERVER_KEY",
        message: `is the sandbox default "${SANDBOX_SERVER_KEY}"; PAYMENT_GATEWAY=midtrans needs the real Midtrans server key`,
      });
    }
  }
  return problems;
}

/**
 * Reads configuration from an environment. Empty strings count as unset, so a
 * compose file can list every variable without forcing values. `role` is the process
 * reading it (`catalog`, `order`, `webhook`, `start`, `gateway`): the address it listens
 * on must be a single one. Throws ConfigError.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, role?: string): Config {
  const present = Object.fromEntries(
    Object.entries(env).filter(([name, value]) => name in schema.shape && value !== undefined && value !== ""),
  );
  const result = schema.safeParse(present);
  if (!result.success) {
    throw new ConfigError(result.error.issues.map((issue) => ({ variable: issue.path.join("."), message: issue.message })));
  }
  const config = result.data;
  const problems = crossCheck(config, present, role);
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    ...config,
    PUBLIC_BASE_URL: (config.PUBLIC_BASE_URL ?? `http://localhost:${config.PORT}`).replace(/\/+$/, ""),
    MIDTRANS_API_BASE_URL: config.MIDTRANS_API_BASE_URL ?? defaultMidtransApiBaseUrl(config.MIDTRANS_BASE_URL),
  };
}

/** Whether a listen host is this machine's loopback only: `localhost`, 127.0.0.0/8, ::1 (a wildcard is not). */
export function isLoopbackHost(host: string): boolean {
  if (host.toLowerCase() === "localhost") return true;
  return ipaddr.isValid(host) && ipaddr.process(host).range() === "loopback";
}

/** "http://127.0.0.1:50051" → the host and port to listen on. */
export function listenAddress(addr: string): { host: string; port: number } {
  // loadConfig refuses a list for the process's own address; this is the last guard.
  if (addr.includes(",")) throw new Error(`a listen address is one URL, not a list: ${addr}`);
  const parsed = new URL(addr);
  return { host: parsed.hostname.replace(/^\[|\]$/g, ""), port: Number(parsed.port || 80) };
}
