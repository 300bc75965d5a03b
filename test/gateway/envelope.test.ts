import http from "node:http";
import test, { type ExecutionContext } from "ava";
import { api, type ApiResponse } from "../helpers/http.js";
import { createStore, Plan, startStack, type Stack } from "../helpers/stack.js";

const RATE = 1_000;

let stack: Stack;
let key: string;
test.before(async () => {
  stack = await startStack({ ratePerMinute: RATE });
  ({ key } = await createStore(stack, Plan.GROWTH, "Envelope Store"));
});
test.after.always(async () => {
  await stack?.close();
});

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  body: any;
}

/**
 * A request fetch() will not make: a GET with a body, optionally chunked (no declared
 * length). The whole body is written before the response is awaited.
 */
function rawRequest(
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: Buffer | string; chunked?: boolean } = {},
): Promise<RawResponse> {
  const url = new URL(stack.baseUrl + path);
  const body = options.body === undefined ? undefined : Buffer.from(options.body);
  const headers: Record<string, string> = { ...options.headers };
  if (body && !options.chunked) headers["content-length"] = String(body.length);
  if (body && options.chunked) headers["transfer-encoding"] = "chunked";
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: url.hostname, port: url.port, path: url.pathname + url.search, method: options.method ?? "GET", headers, agent: false },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let parsed: any;
          try {
            parsed = JSON.parse(text);
          } catch {}
          resolve({ status: response.statusCode!, headers: response.headers, text, body: parsed });
        });
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    if (body && options.chunked) {
      // Several chunks, so the server cannot know the size up front.
      for (let at = 0; at < body.length; at += 16 * 1024) request.write(body.subarray(at, at + 16 * 1024));
      request.end();
    } else {
      request.end(body);
    }
  });
}

function header(response: ApiResponse | RawResponse, name: string): string | null {
  if (response.headers instanceof Headers) return response.headers.get(name);
  const value = response.headers[name.toLowerCase()];
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(", ") : String(value);
}

/** The error envelope, exactly: status, success false, the code and a message. */
function assertError(t: ExecutionContext, response: ApiResponse | RawResponse, status: number, code: string) {
  t.is(response.status, status, response.text);
  t.is(response.body?.success, false, response.text);
  t.is(response.body?.error?.code, code, response.text);
  t.is(typeof response.body?.error?.message, "string");
  t.true(response.body.error.message.length > 0);
  t.false(/\n\s+at /.test(response.text), "no stack trace");
  assertJson(t, response);
}

function assertJson(t: ExecutionContext, response: ApiResponse | RawResponse) {
  t.regex(header(response, "content-type") ?? "", /^application\/json\b/i, `content type of ${response.status}`);
  t.false(/^\s*</.test(response.text), "never HTML");
  t.notThrows(() => JSON.parse(response.text));
  t.regex(header(response, "x-request-id") ?? "", /^[A-Za-z0-9._~:-]{1,128}$/);
}

test("an unknown route under /v1 is 404 NOT_FOUND, with or without a key", async (t) => {
  assertError(t, await api(stack.baseUrl, "/v1/nope"), 404, "NOT_FOUND");
  assertError(t, await api(stack.baseUrl, "/v1/nope", { key }), 404, "NOT_FOUND");
  assertError(t, await api(stack.baseUrl, "/v1/products/extra/segments", { key }), 404, "NOT_FOUND");
  assertError(t, await api(stack.baseUrl, "/v1/nope", { method: "POST", json: { a: 1 } }), 404, "NOT_FOUND");
});

test("an unknown route outside /v1 is 404 NOT_FOUND, with or without a key", async (t) => {
  assertError(t, await api(stack.baseUrl, "/"), 404, "NOT_FOUND");
  assertError(t, await api(stack.baseUrl, "/nope"), 404, "NOT_FOUND");
  assertError(t, await api(stack.baseUrl, "/nope", { key }), 404, "NOT_FOUND");
  assertError(t, await api(stack.baseUrl, "/products"), 404, "NOT_FOUND");
});

test("a wrong method on /v1/products is 405 METHOD_NOT_ALLOWED with Allow naming GET", async (t) => {
  for (const method of ["PUT", "PATCH", "DELETE"]) {
    const response = await api(stack.baseUrl, "/v1/products", { method, key, json: {} });
    assertError(t, response, 405, "METHOD_NOT_ALLOWED");
    const allow = (response.headers.get("allow") ?? "").split(",").map((part) => part.trim());
    t.true(allow.includes("GET"), `Allow: ${response.headers.get("allow")}`);
    t.false(allow.includes(method), `${method} must not be in Allow`);
  }
  // No key at all: the method is still wrong before anything else is checked.
  const anonymous = await api(stack.baseUrl, "/v1/products", { method: "DELETE" });
  assertError(t, anonymous, 405, "METHOD_NOT_ALLOWED");
  t.regex(anonymous.headers.get("allow") ?? "", /\bGET\b/);
});

test("401 carries WWW-Authenticate: Bearer", async (t) => {
  const missing = await api(stack.baseUrl, "/v1/products");
  assertError(t, missing, 401, "UNAUTHORIZED");
  t.regex(missing.headers.get("www-authenticate") ?? "", /^Bearer\b/);

  const unknown = await api(stack.baseUrl, "/v1/products", { key: "sk_live_" + "A".repeat(40) });
  assertError(t, unknown, 401, "UNAUTHORIZED");
  t.regex(unknown.headers.get("www-authenticate") ?? "", /^Bearer\b/);
});

test("a body over 64 KiB is 413 INVALID_REQUEST, declared or chunked", async (t) => {
  const big = JSON.stringify({ padding: "x".repeat(64 * 1024) });
  const declared = await rawRequest("/v1/products", {
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: big,
  });
  assertError(t, declared, 413, "INVALID_REQUEST");

  const chunked = await rawRequest("/v1/products", {
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: big,
    chunked: true,
  });
  assertError(t, chunked, 413, "INVALID_REQUEST");

  // Exactly 64 KiB of valid JSON is still accepted.
  const limit = JSON.stringify({ p: "" });
  const fits = JSON.stringify({ p: "x".repeat(64 * 1024 - limit.length) });
  t.is(Buffer.byteLength(fits), 64 * 1024);
  const ok = await rawRequest("/v1/products", {
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: fits,
  });
  t.is(ok.status, 200, ok.text);
});

test("a body that is not JSON is 415 INVALID_REQUEST", async (t) => {
  const plain = await rawRequest("/v1/products", {
    headers: { authorization: `Bearer ${key}`, "content-type": "text/plain" },
    body: "hello",
  });
  assertError(t, plain, 415, "INVALID_REQUEST");

  const form = await rawRequest("/v1/products", {
    headers: { authorization: `Bearer ${key}`, "content-type": "application/x-www-form-urlencoded" },
    body: "a=1",
  });
  assertError(t, form, 415, "INVALID_REQUEST");

  const untyped = await rawRequest("/v1/products", {
    headers: { authorization: `Bearer ${key}` },
    body: '{"a":1}',
  });
  assertError(t, untyped, 415, "INVALID_REQUEST");
});

test("malformed JSON sent as application/json is 400 INVALID_REQUEST", async (t) => {
  for (const body of ["{", "{'a': 1}", "not json", '{"a":1,}']) {
    const response = await rawRequest("/v1/products", {
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body,
    });
    assertError(t, response, 400, "INVALID_REQUEST");
  }
  const charset = await rawRequest("/v1/products", {
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json; charset=utf-8" },
    body: "{",
  });
  assertError(t, charset, 400, "INVALID_REQUEST");
});

test("X-Request-Id is generated when absent", async (t) => {
  const first = await api(stack.baseUrl, "/v1/products", { key });
  const second = await api(stack.baseUrl, "/v1/nope");
  const a = first.headers.get("x-request-id");
  const b = second.headers.get("x-request-id");
  t.truthy(a);
  t.truthy(b);
  t.regex(a!, /^[A-Za-z0-9._~:-]{1,128}$/);
  t.not(a, b, "each request gets its own id");
});

test("a safe incoming X-Request-Id is kept, on successes and errors", async (t) => {
  const ids = ["abc", "A", "req-1.2_3~4:5", "x".repeat(128), "0123456789"];
  for (const id of ids) {
    const ok = await api(stack.baseUrl, "/v1/products", { key, headers: { "x-request-id": id } });
    t.is(ok.status, 200);
    t.is(ok.headers.get("x-request-id"), id);
  }
  const missing = await api(stack.baseUrl, "/v1/products", { headers: { "x-request-id": "trace-401" } });
  t.is(missing.status, 401);
  t.is(missing.headers.get("x-request-id"), "trace-401");
  const unknown = await api(stack.baseUrl, "/elsewhere", { headers: { "x-request-id": "trace-404" } });
  t.is(unknown.status, 404);
  t.is(unknown.headers.get("x-request-id"), "trace-404");
});

test("an unsafe or too long incoming X-Request-Id is replaced", async (t) => {
  const unsafe = ["x".repeat(129), "has space", "semi;colon", "<script>", "a/b", "quote\"d", "ümlaut"];
  for (const id of unsafe) {
    // fetch refuses non-ASCII header values, so send raw bytes for those.
    const response = /^[\x20-\x7e]*$/.test(id)
      ? await api(stack.baseUrl, "/v1/products", { key, headers: { "x-request-id": id } })
      : await rawRequest("/v1/products", { headers: { authorization: `Bearer ${key}`, "x-request-id": id } });
    t.is(response.status, 200, id);
    const echoed = header(response, "x-request-id");
    t.truthy(echoed, id);
    t.not(echoed, id);
    t.regex(echoed!, /^[A-Za-z0-9._~:-]{1,128}$/);
  }
  const tooLong = await api(stack.baseUrl, "/nope", { headers: { "x-request-id": "y".repeat(500) } });
  t.is(tooLong.status, 404);
  t.not(tooLong.headers.get("x-request-id"), "y".repeat(500));
  t.regex(tooLong.headers.get("x-request-id") ?? "", /^[A-Za-z0-9._~:-]{1,128}$/);
});

test("every response is JSON, never HTML, whatever the route, method or body", async (t) => {
  const starter = await createStore(stack, Plan.STARTER, "Starter Store");
  const responses: (ApiResponse | RawResponse)[] = [
    await api(stack.baseUrl, "/v1/products", { key }),
    await api(stack.baseUrl, "/v1/products"),
    await api(stack.baseUrl, "/v1/products", { key: starter.key }),
    await api(stack.baseUrl, "/v1/products?limit=0", { key }),
    await api(stack.baseUrl, "/v1/products", { method: "POST", key }),
    await api(stack.baseUrl, "/v1/products", { method: "OPTIONS" }),
    await api(stack.baseUrl, "/"),
    await api(stack.baseUrl, "/index.html", { headers: { accept: "text/html" } }),
    await api(stack.baseUrl, "/v1/products", { headers: { accept: "text/html" } }),
    await api(stack.baseUrl, "/v1/%E0%A4%A"),
    await api(stack.baseUrl, "/v1/products/%ZZ", { key }),
    await api(stack.baseUrl, "/v1/products?limit=%E0%A4%A", { key }),
    await rawRequest("/v1/products", {
      headers: { authorization: `Bearer ${key}`, "content-type": "text/html", accept: "text/html" },
      body: "<html></html>",
    }),
    await rawRequest("/v1/products", {
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: "x".repeat(70_000),
    }),
  ];
  for (const response of responses) {
    assertJson(t, response);
    t.is(typeof response.body?.success, "boolean", response.text);
    if (response.status >= 400) {
      t.false(response.body.success);
      t.is(typeof response.body.error?.code, "string");
    } else {
      t.true(response.body.success);
      t.truthy(response.body.data);
    }
  }
});

test("rate headers appear once a key is known: on success and on later errors", async (t) => {
  const ok = await api(stack.baseUrl, "/v1/products", { key });
  t.is(ok.status, 200);
  t.is(ok.headers.get("ratelimit-policy"), `"store";q=${RATE};w=60`);
  const match = /^"store";r=(\d+);t=(\d+)$/.exec(ok.headers.get("ratelimit") ?? "");
  t.truthy(match, `RateLimit: ${ok.headers.get("ratelimit")}`);
  t.true(Number(match![1]) < RATE);
  t.true(Number(match![2]) >= 0);

  // A validation error comes after the rate limit: the key is known, the headers are there.
  const invalid = await api(stack.baseUrl, "/v1/products?limit=0", { key });
  assertError(t, invalid, 400, "INVALID_REQUEST");
  t.is(invalid.headers.get("ratelimit-policy"), `"store";q=${RATE};w=60`);
  t.regex(invalid.headers.get("ratelimit") ?? "", /^"store";r=\d+;t=\d+$/);

  const badBody = await rawRequest("/v1/products", {
    headers: { authorization: `Bearer ${key}`, "content-type": "text/plain" },
    body: "hi",
  });
  t.is(badBody.status, 415);
  t.is(header(badBody, "ratelimit-policy"), `"store";q=${RATE};w=60`);
  t.regex(header(badBody, "ratelimit") ?? "", /^"store";r=\d+;t=\d+$/);

  // Without a known key there is no store bucket to report.
  const anonymous = await api(stack.baseUrl, "/v1/products");
  t.is(anonymous.status, 401);
  t.is(anonymous.headers.get("ratelimit"), null);
  t.is(anonymous.headers.get("ratelimit-policy"), null);
});
