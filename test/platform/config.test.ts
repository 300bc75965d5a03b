import test from "ava";
import { ConfigError, loadConfig } from "../../platform/config.js";

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

test("an empty environment gives the documented defaults", (t) => {
  const config = loadConfig({});
  t.is(config.PORT, 8080);
  t.is(config.PUBLIC_BASE_URL, "http://localhost:8080");
  t.is(config.DATABASE_URL, undefined);
  t.is(config.DATA_DIR, "./.data");
  t.is(config.NATS_URL, undefined);
  t.is(config.CATALOG_ADDR, "http://127.0.0.1:50051");
  t.is(config.ORDER_ADDR, "http://127.0.0.1:50052");
  t.is(config.WEBHOOK_ADDR, "http://127.0.0.1:50053");
  t.is(config.PAYMENT_GATEWAY, "sandbox");
  t.regex(config.MIDTRANS_BASE_URL, /^https:\/\/app\.sandbox\.midtrans\.com\/?$/);
  t.is(config.RATE_LIMIT_PER_MINUTE, 300);
  t.deepEqual(config.WEBHOOK_RETRY_SCHEDULE, [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR]);
  t.is(config.WEBHOOK_ALLOW_HTTP, false);
  t.is(config.WEBHOOK_ALLOW_PRIVATE, false);
  t.is(config.ORDER_PAYMENT_WINDOW, 24 * HOUR);
  t.is(config.STOCK_CONFIRM_SECONDS, 120);
  t.is(config.CATALOG_EVENTS_SUBJECT, "catalog_changes");
  t.is(config.MIDTRANS_SERVER_KEY, "sandbox-server-key");
  t.regex(config.MIDTRANS_API_BASE_URL, /^https:\/\/api\.sandbox\.midtrans\.com\/?$/);
  // Unset, the Core API goes with the Snap host: production Snap, production Core API.
  t.is(loadConfig({ MIDTRANS_BASE_URL: "https://app.midtrans.com" }).MIDTRANS_API_BASE_URL, "https://api.midtrans.com");
  t.is(config.PAYMENT_STATUS_CHECK_AFTER, 15 * MINUTE);
  t.is(config.DATABASE_POOL_SIZE, 10);
  t.is(config.METRICS_HOST, "127.0.0.1", "metrics stay on this machine unless told");
  t.is(config.INTERNAL_TOKEN, undefined);
});

test("empty strings count as unset", (t) => {
  const config = loadConfig({ PORT: "", PAYMENT_GATEWAY: "", RATE_LIMIT_PER_MINUTE: "", ORDER_PAYMENT_WINDOW: "" });
  t.is(config.PORT, 8080);
  t.is(config.PAYMENT_GATEWAY, "sandbox");
  t.is(config.RATE_LIMIT_PER_MINUTE, 300);
  t.is(config.ORDER_PAYMENT_WINDOW, 24 * HOUR);
});

test("PUBLIC_BASE_URL follows PORT unless it is set", (t) => {
  t.is(loadConfig({ PORT: "9090" }).PUBLIC_BASE_URL, "http://localhost:9090");
  t.is(loadConfig({ PORT: "9090" }).PORT, 9090);
  t.is(loadConfig({ PORT: "9090", PUBLIC_BASE_URL: "https://shop.example.com" }).PUBLIC_BASE_URL, "https://shop.example.com");
});

test("set values are parsed into their types", (t) => {
  const config = loadConfig({
    RATE_LIMIT_PER_MINUTE: "6",
    PAYMENT_GATEWAY: "midtrans",
    MIDTRANS_SERVER_KEY: "SB-Mid-server-abc",
    MIDTRANS_API_BASE_URL: "http://127.0.0.1:4010",
    PAYMENT_STATUS_CHECK_AFTER: "90s",
    WEBHOOK_RETRY_SCHEDULE: "1s,500ms,2m",
    WEBHOOK_ALLOW_HTTP: "true",
    WEBHOOK_ALLOW_PRIVATE: "1",
    ORDER_PAYMENT_WINDOW: "30m",
    CATALOG_ADDR: "http://catalog:6000",
    CATALOG_EVENTS_SUBJECT: "shop.catalog-hints",
    DATABASE_POOL_SIZE: "6",
  });
  t.is(config.RATE_LIMIT_PER_MINUTE, 6);
  t.is(config.PAYMENT_GATEWAY, "midtrans");
  t.is(config.MIDTRANS_SERVER_KEY, "SB-Mid-server-abc");
  t.is(config.MIDTRANS_API_BASE_URL, "http://127.0.0.1:4010");
  t.is(config.PAYMENT_STATUS_CHECK_AFTER, 90 * SECOND);
  t.deepEqual(config.WEBHOOK_RETRY_SCHEDULE, [SECOND, 500, 2 * MINUTE]);
  t.true(config.WEBHOOK_ALLOW_HTTP);
  t.true(config.WEBHOOK_ALLOW_PRIVATE);
  t.is(config.ORDER_PAYMENT_WINDOW, 30 * MINUTE);
  t.is(config.CATALOG_ADDR, "http://catalog:6000");
  t.is(config.CATALOG_EVENTS_SUBJECT, "shop.catalog-hints");
  t.is(config.DATABASE_POOL_SIZE, 6);
});

for (const [name, value] of [
  ["PORT", "abc"],
  ["PORT", "70000"],
  ["PAYMENT_GATEWAY", "paypal"],
  ["ORDER_PAYMENT_WINDOW", "soon"],
  ["STOCK_CONFIRM_SECONDS", "0"],
  ["STOCK_CONFIRM_SECONDS", "2m"],
  ["RATE_LIMIT_PER_MINUTE", "0"],
  // Below six, the reconciliation's four transactions at once would leave too few.
  ["DATABASE_POOL_SIZE", "5"],
  ["DATABASE_POOL_SIZE", "ten"],
  ["WEBHOOK_RETRY_SCHEDULE", "5s,later"],
  ["WEBHOOK_ALLOW_HTTP", "maybe"],
  ["CATALOG_ADDR", "not a url"],
  ["ORDER_ADDR", "http://10.0.0.5:50052,order-2:50052"],
  ["ORDER_ADDR", " , "],
  ["CATALOG_EVENTS_SUBJECT", "catalog.*"],
  ["CATALOG_EVENTS_SUBJECT", "catalog..changes"],
  ["MIDTRANS_API_BASE_URL", "api.midtrans.com"],
  ["PAYMENT_STATUS_CHECK_AFTER", "15 minutes"],
  ["TRUST_PROXY", "10.0.0.0/33"],
  ["TRUST_PROXY", "10.0.0.0/8,proxy.internal"],
  ["TRUST_PROXY", "loopback"],
  ["TRUST_PROXY", "0x0a.0.0.1"],
] as const) {
  test(`an invalid ${name}=${JSON.stringify(value)} is refused with an error naming the variable`, (t) => {
    const error = t.throws(() => loadConfig({ [name]: value }));
    t.true(error.message.includes(name), error.message);
  });
}

test("a service address may list several URLs, comma-separated: the processes that dial it spread their calls over them", (t) => {
  const env = { ORDER_ADDR: "http://10.0.0.5:50052, http://10.0.0.6:50052", CATALOG_ADDR: "http://catalog:50051", INTERNAL_TOKEN: "t".repeat(32) };
  t.is(loadConfig(env).ORDER_ADDR, "http://10.0.0.5:50052,http://10.0.0.6:50052");
  t.is(loadConfig(env, "gateway").ORDER_ADDR, "http://10.0.0.5:50052,http://10.0.0.6:50052");
  t.is(loadConfig(env, "catalog").CATALOG_ADDR, "http://catalog:50051", "the catalog listens on its own, single address");
  t.is(loadConfig(env, "webhook").ORDER_ADDR, "http://10.0.0.5:50052,http://10.0.0.6:50052", "the webhook service does not listen on ORDER_ADDR");
});

test("the address a process listens on must be one URL: a list there is refused, naming the variable", (t) => {
  const list = "http://0.0.0.0:50052,http://0.0.0.0:50062";
  const order = t.throws(() => loadConfig({ ORDER_ADDR: list }, "order"), { instanceOf: ConfigError });
  t.deepEqual(order.variables, ["ORDER_ADDR"]);
  t.regex(order.message, /ORDER_ADDR: this process listens on it, so it must be one URL/);
  // `npm start` listens on all three.
  const start = t.throws(() => loadConfig({ CATALOG_ADDR: list, WEBHOOK_ADDR: list }, "start"), { instanceOf: ConfigError });
  t.deepEqual(start.variables, ["CATALOG_ADDR", "WEBHOOK_ADDR"]);
});

test("a service listening beyond loopback needs INTERNAL_TOKEN; on loopback, and for the other roles, it may be unset", (t) => {
  const token = "k".repeat(32);
  for (const [role, variable] of [["catalog", "CATALOG_ADDR"], ["order", "ORDER_ADDR"], ["webhook", "WEBHOOK_ADDR"]] as const) {
    for (const host of ["0.0.0.0", "[::]", "10.0.0.5", "catalog", "[fd00::5]"]) {
      const error = t.throws<ConfigError>(() => loadConfig({ [variable]: `http://${host}:50051` }, role), { instanceOf: ConfigError }, `${role} on ${host}`);
      t.deepEqual(error.variables, ["INTERNAL_TOKEN"]);
      t.regex(error.message, new RegExp(`INTERNAL_TOKEN: must be set: this service listens on .* \\(${variable}\\), beyond loopback`));
      t.is(loadConfig({ [variable]: `http://${host}:50051`, INTERNAL_TOKEN: token }, role).INTERNAL_TOKEN, token);
    }
    for (const host of ["127.0.0.1", "127.0.0.9", "localhost", "[::1]"]) t.notThrows(() => loadConfig({ [variable]: `http://${host}:50051` }, role), `${role} on ${host}`);
  }
  // `npm start` makes a token when none is set; the gateway and the CLI listen on no internal address.
  for (const role of ["start", "gateway", undefined]) t.notThrows(() => loadConfig({ CATALOG_ADDR: "http://0.0.0.0:50051" }, role));
});

test("INTERNAL_TOKEN is at least 32 token characters; a refused one is never repeated in the error", (t) => {
  for (const value of ["short-but-secret", `${"s".repeat(40)} with spaces`, `${"s".repeat(40)}"`]) {
    const error = t.throws<ConfigError>(() => loadConfig({ INTERNAL_TOKEN: value }), { instanceOf: ConfigError });
    t.deepEqual(error.variables, ["INTERNAL_TOKEN"]);
    t.false(error.message.includes(value.slice(0, 10)), error.message);
  }
  for (const value of ["A".repeat(32), "abc-_.~+/".repeat(4) + "==", "x".repeat(43)]) t.is(loadConfig({ INTERNAL_TOKEN: value }).INTERNAL_TOKEN, value);
});

// docs/payments.md#switching-to-midtrans: real Midtrans never runs on the sandbox's well-known key.
for (const [what, env] of [
  ["no MIDTRANS_SERVER_KEY", {}],
  ["an empty MIDTRANS_SERVER_KEY", { MIDTRANS_SERVER_KEY: "" }],
  ["the sandbox default key", { MIDTRANS_SERVER_KEY: "sandbox-server-key" }],
] as const) {
  test(`PAYMENT_GATEWAY=midtrans with ${what} is a configuration error naming MIDTRANS_SERVER_KEY`, (t) => {
    const error = t.throws<ConfigError>(() => loadConfig({ PAYMENT_GATEWAY: "midtrans", ...env }), { instanceOf: ConfigError });
    t.deepEqual(error.variables, ["MIDTRANS_SERVER_KEY"]);
    t.regex(error.message, /^invalid configuration: MIDTRANS_SERVER_KEY: /);
    t.regex(error.message, /PAYMENT_GATEWAY=midtrans/);
  });
}

test("the sandbox runs on the default key, and midtrans on any other key", (t) => {
  t.is(loadConfig({}).MIDTRANS_SERVER_KEY, "sandbox-server-key");
  t.is(loadConfig({ PAYMENT_GATEWAY: "sandbox", MIDTRANS_SERVER_KEY: "" }).MIDTRANS_SERVER_KEY, "sandbox-server-key");
  t.is(loadConfig({ PAYMENT_GATEWAY: "midtrans", MIDTRANS_SERVER_KEY: "Mid-server-live" }).MIDTRANS_SERVER_KEY, "Mid-server-live");
});

test("every problem is reported, each naming its variable", (t) => {
  const error = t.throws<ConfigError>(() => loadConfig({ PORT: "abc", ORDER_PAYMENT_WINDOW: "soon" }), { instanceOf: ConfigError });
  t.deepEqual(error.variables.sort(), ["ORDER_PAYMENT_WINDOW", "PORT"]);
});

// docs/team.md#mail: mail goes over SMTP when SMTP_URL is set, else to DATA_DIR/mail as files.
test("TRUST_PROXY: unset trusts no proxy; a comma list of IPv4 and IPv6 CIDRs or addresses, spaces ignored", (t) => {
  t.deepEqual(loadConfig({}).TRUST_PROXY, []);
  t.deepEqual(loadConfig({ TRUST_PROXY: "" }).TRUST_PROXY, []);
  t.deepEqual(loadConfig({ TRUST_PROXY: "10.0.0.0/8, 172.16.0.0/12 ,fd00::/8,192.0.2.7,::1" }).TRUST_PROXY, [
    "10.0.0.0/8",
    "172.16.0.0/12",
    "fd00::/8",
    "192.0.2.7",
    "::1",
  ]);
});

test("SMTP_URL is unset by default and MAIL_FROM has the documented default", (t) => {
  const config = loadConfig({ SMTP_URL: "", MAIL_FROM: "" });
  t.is(config.SMTP_URL, undefined);
  t.is(config.MAIL_FROM, "Store Order API <no-reply@localhost>");
});

test("SMTP_URL takes smtp:// and smtps:// URLs with credentials, MAIL_FROM a bare or named address", (t) => {
  t.is(loadConfig({ SMTP_URL: "smtp://user:pass@mail.example.com:587" }).SMTP_URL, "smtp://user:pass@mail.example.com:587");
  t.is(loadConfig({ SMTP_URL: "smtps://mail.example.com" }).SMTP_URL, "smtps://mail.example.com");
  t.is(loadConfig({ MAIL_FROM: "shop@example.com" }).MAIL_FROM, "shop@example.com");
  t.is(loadConfig({ MAIL_FROM: '"Toko Ana" <toko@example.com>' }).MAIL_FROM, '"Toko Ana" <toko@example.com>');
});

for (const [name, value] of [
  ["SMTP_URL", "mail.example.com:587"],
  ["SMTP_URL", "http://mail.example.com"],
  ["MAIL_FROM", "Store Order API"],
  ["MAIL_FROM", "Store <no address>"],
] as const) {
  test(`an invalid ${name}=${JSON.stringify(value)} is refused, naming the variable and not echoing the value`, (t) => {
    const error = t.throws<ConfigError>(() => loadConfig({ [name]: value }), { instanceOf: ConfigError });
    t.deepEqual(error.variables, [name]);
    t.false(error.message.includes(value), error.message);
  });
}

test("a refused SMTP_URL never shows its password in the error", (t) => {
  const error = t.throws<ConfigError>(() => loadConfig({ SMTP_URL: "imap://user:hunter2@mail.example.com" }), { instanceOf: ConfigError });
  t.deepEqual(error.variables, ["SMTP_URL"]);
  t.false(error.message.includes("hunter2"));
});

test("RPC_TRANSPORT is lean unless set to connect; anything else is refused, naming the variable", (t) => {
  t.is(loadConfig({}).RPC_TRANSPORT, "lean");
  t.is(loadConfig({ RPC_TRANSPORT: "connect" }).RPC_TRANSPORT, "connect");
  const error = t.throws(() => loadConfig({ RPC_TRANSPORT: "grpc-js" }), { instanceOf: ConfigError });
  t.deepEqual(error.variables, ["RPC_TRANSPORT"]);
});
