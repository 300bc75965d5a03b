// The Idempotency-Key decisions of docs/api.md#idempotency as pure functions, and the orchestration
// against the real idempotency_keys table (a database of the test's own): replay,
// CONFLICT, resume, release.
import test, { type ExecutionContext } from "ava";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { CreateOrderResponseSchema, type CreateOrderResponse } from "../../gen/order/v1/order_pb.js";
import {
  classifyRecord,
  createIdempotency,
  decideClaim,
  KEY_TAKEN_MESSAGE,
  recordOf,
  replayOf,
  TAKEOVER,
} from "../../services/order/idempotency.js";
import { orderTables } from "../helpers/order-tables.js";

const ORDER = "66666666-6666-4666-8666-666666666666";
const STORE = "77777777-7777-4777-8777-777777777777";

const responseFor = (orderId: string) => create(CreateOrderResponseSchema, { detail: { order: { id: orderId, status: "pending" } } });

test("the takeover rule is 24 h for any record and 30 s for a dead request", (t) => {
  t.deepEqual(TAKEOVER, { keepSeconds: 86_400, staleSeconds: 30 });
});

test("classifyRecord: another body is a mismatch, whatever the record holds", (t) => {
  t.deepEqual(classifyRecord({ request_hash: "a", response: null, order_id: null, stale: false }, "b"), { kind: "mismatch" });
  t.deepEqual(classifyRecord({ request_hash: "a", response: new Uint8Array([1]), order_id: ORDER, stale: true }, "b"), { kind: "mismatch" });
});

test("classifyRecord: no response yet is in flight; a response is done", (t) => {
  t.deepEqual(classifyRecord({ request_hash: "a", response: null, order_id: ORDER, stale: true }, "a"), {
    kind: "in_flight",
    orderId: ORDER,
    stale: true,
  });
  t.deepEqual(classifyRecord({ request_hash: "a", response: new Uint8Array([1, 2]), order_id: ORDER, stale: false }, "a"), {
    kind: "done",
    response: new Uint8Array([1, 2]),
  });
  // An empty response is still a response.
  t.is(classifyRecord({ request_hash: "a", response: new Uint8Array(), order_id: ORDER, stale: false }, "a").kind, "done");
});

test("decideClaim: claimed proceeds, done replays, mismatch and a live in-flight request are refused", (t) => {
  t.deepEqual(decideClaim({ kind: "claimed" }), { kind: "proceed" });
  t.deepEqual(decideClaim({ kind: "done", response: new Uint8Array([9]) }), { kind: "replay", response: new Uint8Array([9]) });
  t.deepEqual(decideClaim({ kind: "mismatch" }), { kind: "refuse", message: "Idempotency-Key was already used with a different request" });
  for (const claim of [
    { kind: "in_flight", orderId: ORDER, stale: false },
    { kind: "in_flight", orderId: null, stale: false },
    { kind: "in_flight", orderId: null, stale: true },
  ] as const) {
    t.deepEqual(decideClaim(claim), { kind: "refuse", message: "a request with this Idempotency-Key is still in flight" });
  }
});

test("decideClaim: a stale in-flight request that made its order is answered for (resume)", (t) => {
  t.deepEqual(decideClaim({ kind: "in_flight", orderId: ORDER, stale: true }), { kind: "resume", orderId: ORDER });
});

test("recordOf and replayOf round-trip a response, marked replayed", (t) => {
  const response = responseFor(ORDER);
  const replayed = replayOf(recordOf(response));
  t.true(replayed.replayed);
  t.is(replayed.detail?.order?.id, ORDER);
  t.deepEqual(recordOf({ ...replayed, replayed: false }), recordOf(response));
});

// The orchestration, against the idempotency_keys table of a database of the test's own.

/** The table, the pool the orchestration runs on, and which of its writes it sent. */
async function keyTable(t: ExecutionContext) {
  const tables = await orderTables(t);
  const writes: [RegExp, string][] = [
    [/^\s*insert into idempotency_keys\b/, "claim"],
    [/^\s*update idempotency_keys set order_id = \$\d+, response\b/, "complete"],
    [/^\s*delete from idempotency_keys\b/, "release"],
  ];
  return {
    pool: tables.sql,
    /** claim, complete and release, in the order their statements were sent. */
    calls: () => tables.statements.flatMap((statement) => writes.filter(([pattern]) => pattern.test(statement)).map(([, name]) => name)),
    record: async (key: string): Promise<{ request_hash: string; response: Uint8Array | null; order_id: string | null } | undefined> => {
      const [row] = await tables.direct<{ request_hash: string; response: Buffer | null; order_id: string | null }[]>`
        select request_hash, response, order_id from idempotency_keys where store_id = ${STORE} and key = ${key}`;
      return row && { ...row, response: row.response && new Uint8Array(row.response) };
    },
    /** A record another request left, `ageSeconds` old. */
    leave: async (key: string, record: { request_hash: string; order_id: string | null }, ageSeconds = 0) => {
      await tables.direct`
        insert into idempotency_keys (store_id, key, request_hash, order_id, created_at)
        values (${STORE}, ${key}, ${record.request_hash}, ${record.order_id}, clock_timestamp() - make_interval(secs => ${ageSeconds}))`;
    },
  };
}

function steps(made: string[], orderId = ORDER) {
  return {
    create: async () => {
      made.push(orderId);
      return orderId;
    },
    respond: async (id: string): Promise<CreateOrderResponse> => responseFor(id),
    resume: async (id: string): Promise<CreateOrderResponse> => responseFor(id),
  };
}

test("run without a key just creates and answers", async (t) => {
  const { pool, calls } = await keyTable(t);
  const made: string[] = [];
  const response = await createIdempotency({ sql: pool }).run(STORE, undefined, "h", steps(made));
  t.is(response.detail?.order?.id, ORDER);
  t.deepEqual(made, [ORDER]);
  t.deepEqual(calls(), []);
});

test("run: the first request creates and stores its answer; the same body replays it; another body is refused", async (t) => {
  const { pool, record } = await keyTable(t);
  const idempotency = createIdempotency({ sql: pool });
  const made: string[] = [];
  const first = await idempotency.run(STORE, "k", "h1", steps(made));
  t.false(first.replayed);
  t.deepEqual((await record("k"))?.response, recordOf(first));

  const again = await idempotency.run(STORE, "k", "h1", steps(made));
  t.true(again.replayed);
  t.is(again.detail?.order?.id, ORDER);
  t.deepEqual(made, [ORDER]);

  const other = await t.throwsAsync(idempotency.run(STORE, "k", "h2", steps(made)), { instanceOf: ConnectError });
  t.is(other.code, Code.AlreadyExists);
  t.deepEqual(made, [ORDER]);
});

test("run: a failed create frees the key so a corrected retry can use it", async (t) => {
  const { pool, record, calls } = await keyTable(t);
  const idempotency = createIdempotency({ sql: pool });
  const boom = new Error("refused");
  await t.throwsAsync(
    idempotency.run(STORE, "k", "h", { ...steps([]), create: async () => Promise.reject(boom) }),
    { is: boom },
  );
  t.is(await record("k"), undefined);
  t.deepEqual(calls(), ["claim", "release"]);
  const made: string[] = [];
  t.false((await idempotency.run(STORE, "k", "h", steps(made))).replayed);
  t.deepEqual(made, [ORDER]);
});

test("run: a failure after the order exists keeps the key (no release)", async (t) => {
  const { pool, record, calls } = await keyTable(t);
  const idempotency = createIdempotency({ sql: pool });
  await t.throwsAsync(
    idempotency.run(STORE, "k", "h", {
      ...steps([]),
      respond: async () => {
        throw new Error("gateway exploded");
      },
    }),
  );
  t.truthy(await record("k"));
  t.false(calls().includes("release"));
});

test("run: a stale in-flight request with an order is answered for and completed, replayed", async (t) => {
  const { pool, record, leave } = await keyTable(t);
  await leave("k", { request_hash: "h", order_id: ORDER }, TAKEOVER.staleSeconds + 30);
  const made: string[] = [];
  const response = await createIdempotency({ sql: pool }).run(STORE, "k", "h", steps(made));
  t.true(response.replayed);
  t.is(response.detail?.order?.id, ORDER);
  t.deepEqual(made, []);
  t.deepEqual((await record("k"))?.response, recordOf({ ...response, replayed: false }));
});

test("run: a live in-flight request is refused with ALREADY_EXISTS", async (t) => {
  const { pool, leave } = await keyTable(t);
  await leave("k", { request_hash: "h", order_id: null });
  const error = await t.throwsAsync(createIdempotency({ sql: pool }).run(STORE, "k", "h", steps([])), { instanceOf: ConnectError });
  t.is(error.code, Code.AlreadyExists);
  t.regex(error.message, /still in flight/);
});

test("attach refuses a key another request already tied to its order", async (t) => {
  const { pool, leave } = await keyTable(t);
  const idempotency = createIdempotency({ sql: pool });
  await leave("k", { request_hash: "h", order_id: null });
  await idempotency.attach(pool, STORE, "k", ORDER);
  const error = await t.throwsAsync(idempotency.attach(pool, STORE, "k", "88888888-8888-4888-8888-888888888888"), { instanceOf: ConnectError });
  t.is(error.code, Code.AlreadyExists);
  t.is(error.rawMessage, KEY_TAKEN_MESSAGE);
});
