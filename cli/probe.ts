// A container healthcheck that costs one Node start and one request: Node's own http and
// http2 modules, nothing of the application (no Connect, no protobuf runtime, no config).
// Compiled by `npm run build`; docker-compose.yml runs it for every role:
//
//   node dist/cli/probe.js grpc http://127.0.0.1:50051        grpc.health.v1.Health/Check
//       for the whole server (service ""): exit 0 when it answers SERVING
//   node dist/cli/probe.js http http://127.0.0.1:8080/readyz  one GET: exit 0 on a 2xx
//
// Anything else (refused, another status, no answer within 2 s) exits 1 with one line
// on stderr saying why. The measured cost is in docs/operations.md#compose.
import http from "node:http";
import http2 from "node:http2";

const TIMEOUT_MS = 2_000;
/** grpc.health.v1.HealthCheckResponse.ServingStatus, by number. */
const SERVING_STATUS = ["UNKNOWN", "SERVING", "NOT_SERVING", "SERVICE_UNKNOWN"];

const [mode, target] = process.argv.slice(2);
if ((mode !== "grpc" && mode !== "http") || !target || !/^http:\/\//.test(target)) {
  process.stderr.write("usage: probe grpc http://host:port | probe http http://host:port/path\n");
  process.exit(1);
}

// Whatever ends this process without an answer (a stream closed with nothing said) is a failure.
process.exitCode = 1;
const finish = (ok: boolean, line: string) => {
  (ok ? process.stdout : process.stderr).write(`${line}\n`);
  // Nothing is left to wait for: a socket still closing must not hold the answer back.
  process.exit(ok ? 0 : 1);
};
setTimeout(() => finish(false, `no answer from ${target} within ${TIMEOUT_MS / 1000} s`), TIMEOUT_MS).unref();

if (mode === "http") {
  http
    .get(target, { headers: { "user-agent": "store-order-probe" } }, (response) => {
      response.resume();
      const status = response.statusCode ?? 0;
      finish(status >= 200 && status < 300, `HTTP ${status}`);
    })
    .on("error", (error) => finish(false, error.message));
} else {
  grpcHealth(target);
}

/**
 * One unary gRPC call over cleartext HTTP/2, framed by hand: the request is an empty
 * HealthCheckRequest (service "" = the server as a whole), so its message is a zero
 * length frame; the answer's field 1 is the serving status as a varint.
 */
function grpcHealth(origin: string) {
  const session = http2.connect(origin);
  session.on("error", (error: Error) => finish(false, error.message));
  const call = session.request({
    ":method": "POST",
    ":path": "/grpc.health.v1.Health/Check",
    "content-type": "application/grpc",
    te: "trailers",
    "user-agent": "store-order-probe",
  });
  const chunks: Buffer[] = [];
  let grpcStatus: string | undefined;
  call.on("response", (headers) => {
    // A trailers-only answer (an error) carries grpc-status in the headers.
    if (headers["grpc-status"] !== undefined) grpcStatus = String(headers["grpc-status"]);
    if (headers[":status"] !== 200) finish(false, `HTTP/2 status ${headers[":status"]}`);
  });
  call.on("trailers", (trailers: http2.IncomingHttpHeaders) => {
    grpcStatus = String(trailers["grpc-status"]);
  });
  call.on("data", (chunk: Buffer) => chunks.push(chunk));
  call.on("error", (error: Error) => finish(false, error.message));
  call.on("close", () => finish(false, "the stream closed without an answer"));
  call.on("end", () => {
    if (grpcStatus !== "0") return finish(false, `grpc-status ${grpcStatus ?? "missing"}`);
    const frame = Buffer.concat(chunks);
    if (frame.length < 5 || frame[0] !== 0) return finish(false, "malformed health answer");
    const status = servingStatus(frame.subarray(5, 5 + frame.readUInt32BE(1)));
    const name = SERVING_STATUS[status] ?? String(status);
    finish(name === "SERVING", name);
  });
  call.end(Buffer.alloc(5)); // flags 0 (not compressed), length 0
}

/** Field 1 (varint) of a HealthCheckResponse; absent means 0, UNKNOWN. Other fields are skipped. */
function servingStatus(message: Buffer): number {
  let at = 0;
  const varint = () => {
    let value = 0;
    for (let shift = 0; at < message.length && shift < 35; shift += 7) {
      const byte = message[at++]!;
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value;
    }
    throw new Error("truncated varint");
  };
  let status = 0;
  try {
    while (at < message.length) {
      const key = varint();
      const [field, wire] = [Math.floor(key / 8), key & 7];
      if (wire === 0) {
        const value = varint();
        if (field === 1) status = value;
      } else if (wire === 2) {
        at += varint();
      } else if (wire === 1) {
        at += 8;
      } else if (wire === 5) {
        at += 4;
      } else {
        return -1;
      }
    }
  } catch {
    return -1;
  }
  return status;
}
