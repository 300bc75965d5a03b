// What a service lets out of a handler: its own ConnectErrors as they are, a database
// or socket outage as UNAVAILABLE, anything else as INTERNAL, never a driver message.
import { inspect } from "node:util";
import test from "ava";
import { Code, ConnectError } from "@connectrpc/connect";
import { pino } from "pino";
import { DriverConfusion, isOutage, toRpcError } from "../../platform/rpc-errors.js";

const silent = pino({ level: "silent" });
const where = { service: "order.v1.OrderService", method: "CreateOrder" };

/** A postgres.js error as it arrives: an Error with a code and a message naming the server. */
function driverError(code: string, message = `write ${code} 127.0.0.1:5432`) {
  return Object.assign(new Error(message), { code });
}

test("connection failures of postgres.js, sockets and PostgreSQL count as outages", (t) => {
  for (const code of ["CONNECTION_CLOSED", "CONNECTION_ENDED", "CONNECTION_DESTROYED", "CONNECT_TIMEOUT", "ECONNREFUSED", "ECONNRESET", "57P01", "57P03", "53300", "08006", "08001", "40001"]) {
    t.true(isOutage(driverError(code)), code);
  }
});

test("postgres.js tripping over a terminated backend's last messages counts as an outage; the same TypeError elsewhere does not", (t) => {
  const driver = Object.assign(new TypeError("Cannot set properties of null (setting 'parsing')"), {
    stack:
      "TypeError: Cannot set properties of null (setting 'parsing')\n" +
      "    at ParseComplete (file:///srv/app/node_modules/postgres/src/connection.js:652:19)\n" +
      "    at handle (file:///srv/app/node_modules/postgres/src/connection.js:520:6)",
  });
  t.true(isOutage(driver));
  t.is(toRpcError(driver, silent, where).code, Code.Unavailable);
  const ours = Object.assign(new TypeError("Cannot set properties of null (setting 'parsing')"), {
    stack: "TypeError: Cannot set properties of null (setting 'parsing')\n    at placeOrder (file:///srv/app/services/order/orders.ts:40:1)\n    at (file:///srv/app/node_modules/postgres/src/connection.js:1:1)",
  });
  t.false(isOutage(ours), "only when the driver's connection code threw it");
});

test("rows the driver gave a statement that cannot be its answer count as an outage: UNAVAILABLE, retried, never INTERNAL", (t) => {
  const confused = new DriverConfusion("the order's insert");
  t.true(isOutage(confused));
  t.is(toRpcError(confused, silent, where).code, Code.Unavailable);
});

test("bugs and bad SQL are not outages", (t) => {
  for (const error of [new TypeError("x is undefined"), driverError("23505"), driverError("22021"), driverError("42P01"), "text", null, undefined, { code: 7 }]) {
    t.false(isOutage(error), inspect(error, { depth: 0 }));
  }
});

test("an outage becomes UNAVAILABLE with a message that names no host, port or driver", (t) => {
  const error = toRpcError(driverError("CONNECTION_CLOSED"), silent, where);
  t.is(error.code, Code.Unavailable);
  t.notRegex(error.rawMessage, /127\.0\.0\.1|5432|CONNECTION|postgres/i);
});

test("anything else becomes INTERNAL with a generic message", (t) => {
  const error = toRpcError(driverError("22021", 'invalid byte sequence for encoding "UTF8": 0x00'), silent, where);
  t.is(error.code, Code.Internal);
  t.is(error.rawMessage, "internal error");
  t.is(toRpcError(new TypeError("boom"), silent, where).code, Code.Internal);
});

test("a handler's own ConnectError keeps its code, message and details", (t) => {
  const own = new ConnectError("order x not found", Code.NotFound);
  t.is(toRpcError(own, silent, where), own);
});

test("a ConnectError whose message holds a lone surrogate keeps its code and becomes well-formed", (t) => {
  const error = toRpcError(new ConnectError("no order \ud800", Code.NotFound), silent, where);
  t.is(error.code, Code.NotFound);
  t.true(error.rawMessage.isWellFormed());
  t.notThrows(() => encodeURIComponent(error.rawMessage));
});
