import test from "ava";
import { loadConfig } from "../../services/lib/config.js";

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

test("an empty environment gives the contract's defaults", (t) => {
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
  t.is(config.CATALOG_EVENTS_SUBJECT, "catalog_changes");
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
    WEBHOOK_RETRY_SCHEDULE: "1s,500ms,2m",
    WEBHOOK_ALLOW_HTTP: "true",
    WEBHOOK_ALLOW_PRIVATE: "1",
    ORDER_PAYMENT_WINDOW: "30m",
    CATALOG_ADDR: "http://catalog:6000",
    CATALOG_EVENTS_SUBJECT: "shop.catalog-hints",
  });
  t.is(config.RATE_LIMIT_PER_MINUTE, 6);
  t.is(config.PAYMENT_GATEWAY, "midtrans");
  t.deepEqual(config.WEBHOOK_RETRY_SCHEDULE, [SECOND, 500, 2 * MINUTE]);
  t.true(config.WEBHOOK_ALLOW_HTTP);
  t.true(config.WEBHOOK_ALLOW_PRIVATE);
  t.is(config.ORDER_PAYMENT_WINDOW, 30 * MINUTE);
  t.is(config.CATALOG_ADDR, "http://catalog:6000");
  t.is(config.CATALOG_EVENTS_SUBJECT, "shop.catalog-hints");
});

for (const [name, value] of [
  ["PORT", "abc"],
  ["PORT", "70000"],
  ["PAYMENT_GATEWAY", "paypal"],
  ["ORDER_PAYMENT_WINDOW", "soon"],
  ["RATE_LIMIT_PER_MINUTE", "0"],
  ["WEBHOOK_RETRY_SCHEDULE", "5s,later"],
  ["WEBHOOK_ALLOW_HTTP", "maybe"],
  ["CATALOG_ADDR", "not a url"],
  ["CATALOG_EVENTS_SUBJECT", "catalog.*"],
  ["CATALOG_EVENTS_SUBJECT", "catalog..changes"],
] as const) {
  test(`an invalid ${name}=${JSON.stringify(value)} is refused with an error naming the variable`, (t) => {
    const error = t.throws(() => loadConfig({ [name]: value }));
    t.true(error!.message.includes(name), error!.message);
  });
}
