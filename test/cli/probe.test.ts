// cli/probe.ts, the containers' healthcheck, against servers of the test's own: exit 0
// only for SERVING (gRPC) or a 2xx (HTTP); every other answer, a refused connection and
// silence past 2 s exit 1 with one line saying why. (test/ops/compiled.test.ts runs the
// compiled probe against the real services.)
import http from "node:http";
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import test from "ava";
import { freePort, spawnEntry } from "../helpers/process.js";

async function probe(...args: string[]) {
  const child = spawnEntry("cli/probe.ts", {}, args);
  const code = await child.exited;
  return { code, output: child.output().trim() };
}

/** An h2c server answering grpc.health.v1.Health/Check with `status` (or grpc-status `grpcStatus`, or nothing). */
async function healthServer(answer: { status?: number; grpcStatus?: number; silent?: boolean }) {
  const paths: string[] = [];
  const server = http2.createServer();
  server.on("stream", (stream, headers) => {
    paths.push(String(headers[":path"]));
    stream.on("data", () => {});
    stream.on("end", () => {
      if (answer.silent) return;
      if (answer.grpcStatus !== undefined) {
        stream.respond({ ":status": 200, "content-type": "application/grpc", "grpc-status": String(answer.grpcStatus) }, { endStream: true });
        return;
      }
      stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
      stream.on("wantTrailers", () => stream.sendTrailers({ "grpc-status": "0" }));
      // HealthCheckResponse { status = 1 }: field 1, varint → 0x08, value; 0 is the default, sent as nothing.
      const message = answer.status ? Buffer.from([0x08, answer.status]) : Buffer.alloc(0);
      const frame = Buffer.alloc(5 + message.length);
      frame.writeUInt32BE(message.length, 1);
      message.copy(frame, 5);
      stream.end(frame);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    paths,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

test("grpc: SERVING exits 0; NOT_SERVING, UNKNOWN and an error status exit 1, each saying what it got", async (t) => {
  for (const [answer, code, said] of [
    [{ status: 1 }, 0, "SERVING"],
    [{ status: 2 }, 1, "NOT_SERVING"],
    [{ status: 0 }, 1, "UNKNOWN"],
    [{ grpcStatus: 14 }, 1, "grpc-status 14"],
  ] as const) {
    const server = await healthServer(answer);
    try {
      const result = await probe("grpc", server.url);
      t.is(result.code, code, JSON.stringify(answer));
      t.is(result.output, said);
      t.deepEqual(server.paths, ["/grpc.health.v1.Health/Check"]);
    } finally {
      await server.close();
    }
  }
});

test("grpc: a refused connection and a server silent past 2 s exit 1", async (t) => {
  const refused = await probe("grpc", `http://127.0.0.1:${await freePort()}`);
  t.is(refused.code, 1);
  t.regex(refused.output, /ECONNREFUSED/);
  const server = await healthServer({ silent: true });
  try {
    const started = Date.now();
    const silent = await probe("grpc", server.url);
    t.is(silent.code, 1);
    t.regex(silent.output, /no answer .* within 2 s/);
    t.true(Date.now() - started < 10_000);
  } finally {
    await server.close();
  }
});

test("http: a 2xx exits 0, any other status or a refused connection exits 1", async (t) => {
  let status = 200;
  const seen: string[] = [];
  const server = http.createServer((request, response) => {
    seen.push(`${request.method} ${request.url}`);
    response.writeHead(status, { "content-type": "application/json" }).end("{}");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/readyz`;
  try {
    t.deepEqual(await probe("http", url), { code: 0, output: "HTTP 200" });
    status = 503;
    t.deepEqual(await probe("http", url), { code: 1, output: "HTTP 503" });
    t.deepEqual(seen, ["GET /readyz", "GET /readyz"]);
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  t.is((await probe("http", `http://127.0.0.1:${await freePort()}/readyz`)).code, 1);
});

test("a wrong invocation exits 1 with its usage", async (t) => {
  for (const args of [[], ["grpc"], ["tcp", "http://127.0.0.1:1"], ["http", "127.0.0.1:8080"]]) {
    const result = await probe(...args);
    t.is(result.code, 1, args.join(" "));
    t.regex(result.output, /^usage: probe/);
  }
});
