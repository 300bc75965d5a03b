// What the document says each operation answers, against answers as the gateway gives
// them (statuses and headers from gateway/guards.ts, errors.ts, rate-limit.ts), through
// the checker api() applies to every /v1 answer of the full-stack tests. Pure.
import test from "ava";
import { openApiDocument } from "../../gateway/openapi.js";
import { createOpenApiValidator } from "../helpers/openapi.js";
import { testEventBody } from "../../services/webhook/deliveries.js";

const v = createOpenApiValidator(JSON.parse(JSON.stringify(openApiDocument)));

const json = { "content-type": "application/json; charset=utf-8", "x-request-id": "req-1" };
const rate = { ratelimit: '"store";r=299;t=1', "ratelimit-policy": '"store";q=300;w=60' };
const error = (code: string) => ({ success: false, error: { code, message: "m" } });
const answer = (status: number, headers: Record<string, string>, body: unknown) => ({ status, headers: new Headers(headers), body });

test("GET /v1/orders documents the 404 of an unknown starting_after, with the rate headers the guards already set", (t) => {
  t.deepEqual(v.checkAnswer("GET", "/v1/orders?starting_after=00000000-0000-4000-8000-000000000000", answer(404, { ...json, ...rate }, error("NOT_FOUND"))), []);
});

test("errors after the rate limit carry the rate headers; those before it do not, and both are documented", (t) => {
  for (const [status, code] of [[400, "INVALID_REQUEST"], [403, "FORBIDDEN"], [409, "CONFLICT"], [413, "INVALID_REQUEST"], [415, "INVALID_REQUEST"], [500, "INTERNAL_ERROR"]] as const) {
    t.deepEqual(v.checkAnswer("POST", "/v1/orders", answer(status, { ...json, ...rate }, error(code))), [], `${status}`);
  }
  t.deepEqual(v.checkAnswer("GET", "/v1/products", answer(429, { ...json, ...rate, "retry-after": "1" }, error("RATE_LIMITED"))), []);
  t.deepEqual(v.checkAnswer("GET", "/v1/products", answer(429, { ...json, "retry-after": "1" }, error("RATE_LIMITED"))), [], "the 429 of failed authentications");
  t.deepEqual(v.checkAnswer("GET", "/v1/products", answer(403, json, error("PLAN_REQUIRED"))), []);
  t.deepEqual(v.checkAnswer("GET", "/v1/products", answer(401, { ...json, "www-authenticate": "Bearer" }, error("UNAUTHORIZED"))), []);
  t.deepEqual(v.checkAnswer("GET", "/v1/payment-methods", answer(415, { ...json, ...rate }, error("INVALID_REQUEST"))), [], "a GET's body is read too");
});

test("the checker refuses an answer the document does not describe", (t) => {
  const ok = { success: true, data: { items: [], has_more: false } };
  t.deepEqual(v.checkAnswer("GET", "/v1/products", answer(200, { ...json, ...rate }, ok)), []);
  t.regex(v.checkAnswer("GET", "/v1/products", answer(200, json, ok)).join("\n"), /header ratelimit is documented as required/);
  t.regex(v.checkAnswer("GET", "/v1/products", answer(200, { ...json, ...rate, "x-extra": "1" }, ok)).join("\n"), /header x-extra is sent but GET \/v1\/products → 200 does not document it/);
  t.regex(v.checkAnswer("GET", "/v1/products", answer(200, { ...json, ...rate, ratelimit: "300" }, ok)).join("\n"), /header RateLimit: data must match pattern/);
  t.regex(v.checkAnswer("GET", "/v1/products", answer(200, { ...json, ...rate }, { success: true, data: {} })).join("\n"), /body \(GET \/v1\/products → 200\): .*must have required property 'items'/);
  t.regex(v.checkAnswer("GET", "/v1/products", answer(409, { ...json, ...rate }, error("CONFLICT"))).join("\n"), /GET \/v1\/products documents no 409 response/);
  t.regex(v.checkAnswer("GET", "/v1/products", answer(503, { ...json, ...rate }, error("SERVICE_UNAVAILABLE"))).join("\n"), /header retry-after is documented as required/);
  t.deepEqual(v.checkAnswer("GET", "/v1/nowhere", answer(404, json, error("NOT_FOUND"))), []);
  t.deepEqual(v.checkAnswer("DELETE", "/v1/products", answer(405, { ...json, allow: "HEAD, GET" }, error("METHOD_NOT_ALLOWED"))), []);
  t.regex(v.checkAnswer("GET", "/v1/nowhere", answer(200, json, { success: true, data: {} })).join("\n"), /no path of the document matches/);
});

test("webhook.test is among the document's webhooks, with the body the webhook service sends", (t) => {
  const body = JSON.parse(testEventBody("11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222", false, new Date("2026-11-28T05:00:00Z")));
  t.is(v.checkWebhook("webhook.test", body), undefined);
  t.not(v.checkWebhook("webhook.test", { ...body, type: "order.paid" }), undefined);
});
