// Whatever a handler throws reaches every kind of client with the handler's own code:
// the lean unary gRPC path, Connect's gRPC and Connect-protocol transports, a stock
// @grpc/grpc-js client, and the in-process channel `npm start` uses. An awkward message (a lone surrogate) never turns into a
// reset stream, a driver error never leaks its text, and a request holding a control
// character is refused before any handler runs. No database: a fake handler.
import path from "node:path";
import test from "ava";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { Code, ConnectError, createClient, type ConnectRouter } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { fromBinary } from "@bufbuild/protobuf";
import { BinaryReader } from "@bufbuild/protobuf/wire";
import { AnySchema } from "@bufbuild/protobuf/wkt";
import { pino } from "pino";
import { BadRequestSchema } from "../../gen/google/rpc/error_details_pb.js";
import { OrderService } from "../../gen/order/v1/order_pb.js";
import { createInProcessChannel, createRpcChannel } from "../../platform/rpc-client.js";
import { fieldErrors, fieldViolations, MAX_FIELD_VIOLATIONS } from "../../platform/field-errors.js";
import { startRpcServer, type RpcServer } from "../../platform/rpc-server.js";
import { ROOT } from "../helpers/process.js";

let server: RpcServer;
let handled = 0;
const baseUrl = () => `http://127.0.0.1:${server.port}`;

/** The failure each order id asks the fake handler for. */
function routes(router: ConnectRouter) {
  router.service(OrderService, {
    async getOrder(request) {
      handled++;
      switch (request.orderId) {
        case "surrogate":
          throw new ConnectError("no order \ud800 here", Code.NotFound);
        case "driver":
          throw Object.assign(new Error("write CONNECTION_CLOSED 127.0.0.1:5432"), { code: "CONNECTION_CLOSED" });
        case "bug":
          throw new TypeError("Cannot read properties of undefined (reading 'id')");
        case "many fields":
          // The longest field paths and messages a bank-mutations call can produce, more than one answer names.
          throw fieldErrors(
            Array.from({ length: MAX_FIELD_VIOLATIONS + 50 }, (_, i) => ({
              field: `mutations[${i}].occurred_at`,
              description: "must be an RFC 3339 date-time with an offset, e.g. 2026-11-20T10:00:00+07:00",
            })),
          );
        default:
          return {};
      }
    },
  });
}

test.before(async () => {
  server = await startRpcServer({
    name: "test",
    host: "127.0.0.1",
    port: 0,
    logger: pino({ level: "silent" }),
    routes,
    services: [OrderService.typeName],
    ready: async () => {},
  });
});

test.after.always(async () => {
  await server?.close(100);
});

type Call = (orderId: string) => Promise<{ code: Code; message: string; field?: string; fields?: string[] }>;

function callWith(client: ReturnType<typeof createClient<typeof OrderService>>): Call {
  return async (orderId) => {
    try {
      await client.getOrder({ storeId: "s", orderId });
      return { code: Code.Unknown, message: "no error" };
    } catch (error) {
      const e = ConnectError.from(error);
      const fields = fieldViolations(e).map((v) => v.field);
      return { code: e.code, message: e.rawMessage, field: fields[0], fields };
    }
  };
}

const connectCall = (transport: Parameters<typeof createClient>[1]): Call => callWith(createClient(OrderService, transport));

const clients: Record<string, () => { call: Call; close(): void }> = {};
clients["lean gRPC"] = () => {
  const channel = createRpcChannel(baseUrl());
  return { call: callWith(channel.client(OrderService)), close: () => channel.close() };
};
clients["in process"] = () => {
  const channel = createInProcessChannel(server.inProcess);
  return { call: callWith(channel.client(OrderService)), close: () => channel.close() };
};
clients["Connect gRPC"] = () => ({ call: connectCall(createGrpcTransport({ baseUrl: baseUrl() })), close() {} });
clients["Connect protocol"] = () => ({ call: connectCall(createConnectTransport({ baseUrl: baseUrl(), httpVersion: "2" })), close() {} });
clients["grpc-js"] = () => {
  const definition = protoLoader.loadSync("order/v1/order.proto", { keepCase: false, defaults: true, oneofs: true, includeDirs: [path.join(ROOT, "proto")] });
  const loaded = grpc.loadPackageDefinition(definition) as any;
  const client = new loaded.order.v1.OrderService(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure());
  return {
    call: (orderId) =>
      new Promise((resolve) => {
        client.GetOrder({ storeId: "s", orderId }, (error: grpc.ServiceError | null) => {
          if (!error) return resolve({ code: Code.Unknown, message: "no error" });
          // grpc-js status numbers are the same as Connect's Code values.
          resolve({ code: error.code as number as Code, message: error.details, ...standardFieldViolations(error.metadata) });
        });
      }),
    close: () => client.close(),
  };
};

/**
 * The fields a stock gRPC client finds without any of our code: the standard
 * `grpc-status-details-bin` trailer (a google.rpc.Status, whose field 3 holds its
 * details as google.protobuf.Any) and in it the standard google.rpc.BadRequest, known
 * by its type URL alone. A detail of a type of our own would be invisible here.
 */
function standardFieldViolations(metadata: grpc.Metadata): { field?: string; fields: string[] } {
  const fields: string[] = [];
  for (const value of metadata.get("grpc-status-details-bin")) {
    const reader = new BinaryReader(value as Buffer);
    while (reader.pos < reader.len) {
      const [number, wireType] = reader.tag();
      if (number !== 3) {
        reader.skip(wireType);
        continue;
      }
      const detail = fromBinary(AnySchema, reader.bytes());
      if (detail.typeUrl !== "type.googleapis.com/google.rpc.BadRequest") continue;
      fields.push(...fromBinary(BadRequestSchema, detail.value).fieldViolations.map((v) => v.field));
    }
  }
  return { field: fields[0], fields };
}

for (const [name, make] of Object.entries(clients)) {
  test.serial(`${name}: a NOT_FOUND whose message holds a lone surrogate arrives as NOT_FOUND`, async (t) => {
    const client = make();
    t.teardown(() => client.close());
    const answer = await client.call("surrogate");
    t.is(answer.code, Code.NotFound, answer.message);
    t.regex(answer.message, /^no order .* here$/);
  });

  test.serial(`${name}: a dropped database connection arrives as UNAVAILABLE without the driver's text`, async (t) => {
    const client = make();
    t.teardown(() => client.close());
    const answer = await client.call("driver");
    t.is(answer.code, Code.Unavailable, answer.message);
    t.notRegex(answer.message, /127\.0\.0\.1|5432|CONNECTION_CLOSED/);
  });

  test.serial(`${name}: a bug arrives as INTERNAL with a generic message`, async (t) => {
    const client = make();
    t.teardown(() => client.close());
    const answer = await client.call("bug");
    t.is(answer.code, Code.Internal, answer.message);
    t.is(answer.message, "internal error");
  });

  test.serial(`${name}: a control character in a request field is INVALID_ARGUMENT naming it, before the handler`, async (t) => {
    const client = make();
    t.teardown(() => client.close());
    const before = handled;
    const answer = await client.call("ord\u0000er");
    t.is(answer.code, Code.InvalidArgument, answer.message);
    t.regex(answer.message, /^order_id: must not contain control characters/);
    if (answer.field !== undefined) t.is(answer.field, "order_id");
    t.is(handled, before, "the handler never ran");
  });

  test.serial(`${name}: an INVALID_ARGUMENT naming many fields arrives whole, with the first MAX_FIELD_VIOLATIONS of them`, async (t) => {
    const client = make();
    t.teardown(() => client.close());
    const answer = await client.call("many fields");
    t.is(answer.code, Code.InvalidArgument, answer.message);
    t.regex(answer.message, /^mutations\[0\]\.occurred_at: must be an RFC 3339/);
    t.is(answer.fields?.length, MAX_FIELD_VIOLATIONS);
    t.is(answer.fields?.at(-1), `mutations[${MAX_FIELD_VIOLATIONS - 1}].occurred_at`);
  });
}
