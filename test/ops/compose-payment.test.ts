// docker-compose.yml ships no Midtrans server key (docs/payments.md#switching-to-midtrans): sandbox by default,
// with the sandbox's own default key; midtrans only with a key from the host, and
// without one the roles refuse to start.
import test from "ava";
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { ConfigError, loadConfig } from "../../platform/config.js";
import { ROOT } from "../helpers/process.js";

const text = readFileSync(path.join(ROOT, "docker-compose.yml"), "utf8");
const compose = parse(text, { merge: true });
const ROLES = ["catalog", "order", "webhook", "gateway"] as const;

/** Compose's `${VAR}`, `${VAR:-default}` and `${VAR-default}`, with `host` as the shell's environment. */
function interpolate(value: unknown, host: Record<string, string | undefined>): string {
  return String(value).replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)-([^}]*))?\}/g, (_match, name: string, colon: string | undefined, fallback: string | undefined) => {
    const set = host[name];
    if (fallback === undefined) return set ?? "";
    return set === undefined || (colon === ":" && set === "") ? fallback : set;
  });
}

function environmentOf(role: string, host: Record<string, string | undefined> = {}): Record<string, string> {
  return Object.fromEntries(Object.entries(compose.services[role].environment).map(([name, value]) => [name, interpolate(value, host)]));
}

test("the compose file writes no server key: each role passes the host's through, or has none", (t) => {
  t.false(text.includes("sandbox-server-key"), "the sandbox default is the code's, not the file's");
  for (const role of ROLES) {
    const raw = compose.services[role].environment.MIDTRANS_SERVER_KEY;
    if (raw !== undefined) t.is(raw, "${MIDTRANS_SERVER_KEY:-}", `${role} takes the key from the host only`);
  }
});

test("on a host that sets nothing every role runs the sandbox on its default key", (t) => {
  for (const role of ROLES) {
    const config = loadConfig(environmentOf(role));
    t.is(config.PAYMENT_GATEWAY, "sandbox", role);
    t.is(config.MIDTRANS_SERVER_KEY, "sandbox-server-key", role);
  }
});

test("the order service and the gateway follow the host's PAYMENT_GATEWAY, and midtrans needs the host's key", (t) => {
  for (const role of ["order", "gateway"] as const) {
    const error = t.throws<ConfigError>(() => loadConfig(environmentOf(role, { PAYMENT_GATEWAY: "midtrans" })), { instanceOf: ConfigError });
    t.deepEqual(error.variables, ["MIDTRANS_SERVER_KEY"], role);
    const config = loadConfig(environmentOf(role, { PAYMENT_GATEWAY: "midtrans", MIDTRANS_SERVER_KEY: "Mid-server-from-host" }));
    t.is(config.PAYMENT_GATEWAY, "midtrans", role);
    t.is(config.MIDTRANS_SERVER_KEY, "Mid-server-from-host", role);
  }
});

test("the order service gets the Core API address and the status check delay, overridable from the host", (t) => {
  const order = loadConfig(environmentOf("order"));
  t.regex(order.MIDTRANS_API_BASE_URL, /^https:\/\/api\.sandbox\.midtrans\.com\/?$/);
  t.is(order.PAYMENT_STATUS_CHECK_AFTER, 15 * 60_000);
  const env = environmentOf("order", { MIDTRANS_API_BASE_URL: "https://api.midtrans.com", PAYMENT_STATUS_CHECK_AFTER: "5m" });
  t.is(env.MIDTRANS_API_BASE_URL, "https://api.midtrans.com");
  t.is(loadConfig(env).PAYMENT_STATUS_CHECK_AFTER, 5 * 60_000);
});
