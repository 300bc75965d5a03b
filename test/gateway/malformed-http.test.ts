// docs/api.md#robustness: HTTP that Node's parser refuses still gets the JSON
// envelope (400 / 431), and a client that hangs up mid-request is logged as aborted,
// not counted or logged as a 500. Raw sockets, so nothing tidies the bytes on the way.
import net from "node:net";
import test from "ava";
import { createProduct, createStore, startStack, type Stack } from "../helpers/stack.js";
import { waitFor } from "../helpers/http.js";
import { capturingLogger } from "../helpers/logs.js";

let stack: Stack;
let key: string;
const lines: Record<string, any>[] = [];

test.before(async () => {
  stack = await startStack({ logger: capturingLogger(lines) });
  const store = await createStore(stack, undefined, "Malformed Store");
  key = store.key;
  await createProduct(stack, store.storeId, "Kopi", 10_000);
});

test.after.always(async () => {
  await stack?.close();
});

/** Sends raw bytes and reads until the server closes the connection (or 5 s pass). */
function raw(bytes: string | Buffer): Promise<string> {
  const port = Number(new URL(stack.baseUrl).port);
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => resolve(Buffer.concat(chunks).toString("utf8")));
    socket.setTimeout(5_000, () => socket.destroy());
    socket.write(bytes);
  });
}

function parse(response: string) {
  const [head, body] = response.split("\r\n\r\n");
  const [statusLine, ...headerLines] = head!.split("\r\n");
  const headers = Object.fromEntries(headerLines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]));
  return { status: Number(statusLine!.split(" ")[1]), headers, body: JSON.parse(body!) };
}

test.serial("a broken request line gets 400 in the JSON envelope", async (t) => {
  const response = parse(await raw("GET /v1/products HTTP/1.1 extra\r\nHost: x\r\n\r\n"));
  t.is(response.status, 400);
  t.regex(response.headers["content-type"] ?? "", /^application\/json/);
  t.truthy(response.headers["x-request-id"]);
  t.deepEqual(response.body, { success: false, error: { code: "INVALID_REQUEST", message: "malformed HTTP request" } });
});

test.serial("garbage that is not HTTP at all gets 400 in the JSON envelope", async (t) => {
  const response = parse(await raw("\u0000\u0001\u0002 hello\r\n\r\n"));
  t.is(response.status, 400);
  t.is(response.body.error.code, "INVALID_REQUEST");
});

test.serial("20 KB of headers gets 431 in the JSON envelope", async (t) => {
  const response = parse(await raw(`GET /v1/products HTTP/1.1\r\nHost: x\r\nX-Padding: ${"a".repeat(20_000)}\r\n\r\n`));
  t.is(response.status, 431);
  t.deepEqual(response.body, { success: false, error: { code: "INVALID_REQUEST", message: "request headers are too large" } });
  t.true(lines.some((line) => line.msg === "malformed request refused" && line.status === 431), "logged");
});

test.serial("a client that hangs up mid-body is logged as aborted, never as a 500", async (t) => {
  const port = Number(new URL(stack.baseUrl).port);
  const socket = net.connect(port, "127.0.0.1");
  await new Promise((resolve) => socket.once("connect", resolve));
  socket.write(
    "POST /v1/orders HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
      `Authorization: Bearer ${key}\r\nContent-Length: 5000\r\nX-Request-Id: aborted-mid-body\r\n\r\n{"items":[`,
  );
  await new Promise((resolve) => setTimeout(resolve, 300));
  socket.destroy();
  await waitFor(() => lines.some((line) => line.requestId === "aborted-mid-body"), 5_000);
  const line = lines.find((entry) => entry.requestId === "aborted-mid-body")!;
  t.is(line.msg, "request aborted by the client");
  t.true(line.aborted);
  t.not(line.level, "error");
  t.false(lines.some((entry) => entry.requestId === "aborted-mid-body" && entry.status === 500));
  const metrics = await (await fetch(stack.metricsUrl)).text();
  t.regex(metrics, /http_requests_total\{route="\/v1\/orders",method="POST",code="499"\} [1-9]/);
  t.notRegex(metrics, /http_requests_total\{route="\/v1\/orders",method="POST",code="500"\}/);
});

test.serial("a request without Host, CONNECT, a broken chunked body and an unknown transfer coding all get the envelope", async (t) => {
  const port = Number(new URL(stack.baseUrl).port);
  const noHost = parse(await raw(`GET /v1/products HTTP/1.1\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`));
  t.is(noHost.status, 200, "Host is not needed to route");
  t.is(noHost.body.success, true);
  const connect = parse(await raw(`CONNECT 127.0.0.1:${port} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`));
  t.is(connect.status, 405);
  t.is(connect.body.error.code, "METHOD_NOT_ALLOWED");
  const badChunk = parse(
    await raw(
      `POST /v1/orders HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
    ),
  );
  t.is(badChunk.status, 400);
  t.is(badChunk.body.error.code, "INVALID_REQUEST");
  const gzipOnly = parse(
    await raw(`POST /v1/orders HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nTransfer-Encoding: gzip\r\nConnection: close\r\n\r\n{}`),
  );
  t.is(gzipOnly.status, 400);
  t.is(gzipOnly.body.error.code, "INVALID_REQUEST");
});

test.serial("a body of invalid UTF-8 or nested 10,000 deep is 400 INVALID_REQUEST", async (t) => {
  const invalid = await fetch(`${stack.baseUrl}/v1/orders`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: Buffer.concat([Buffer.from('{"buyer":{"name":"Bu'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('di"}}')]),
  });
  t.is(invalid.status, 400);
  t.is((await invalid.json()).error.message, "request body is not valid UTF-8");
  const deep = await fetch(`${stack.baseUrl}/v1/orders`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: "[".repeat(10_000) + "]".repeat(10_000),
  });
  t.is(deep.status, 400);
  t.regex((await deep.json()).error.message, /nested more than 64 levels/);
});
