// The Idempotency-Key decisions of CONTRACT §4 as pure functions, and the orchestration
// against an in-memory record store: replay, CONFLICT, resume, release. No database.
import test from "ava";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { CreateOrderResponseSchema, type CreateOrderResponse } from "../../gen/order/v1/order_pb.js";
import type { Pool } from "../../services/order/db/orders.js";
import {
  classifyRecord,
  createIdempotency,
  decideClaim,
  KEY_TAKEN_MESSAGE,
  recordOf,
  replayOf,
  TAKEOVER,
  type IdempotencyStore,
} from "../../services/order/idempotency.js";

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

// The orchestration, against records kept in a Map.

interface Rec {
  request_hash: string;
  response: Uint8Array | null;
  order_id: string | null;
  stale: boolean;
}

function memoryStore() {
  const records = new Map<string, Rec>();
  const calls: string[] = [];
  const store: IdempotencyStore = {
    async tryClaimIdempotencyKey(_db, storeId, key, requestHash) {
      calls.push("claim");
      const id = `${storeId}/${key}`;
      const existing = records.get(id);
      if (existing && !(existing.stale && existing.response === null && existing.order_id === null)) return false;
      records.set(id, { request_hash: requestHash, response: null, order_id: null, stale: false });
      return true;
    },
    async findIdempotencyRecord(_db, storeId, key) {
      return records.get(`${storeId}/${key}`);
    },
    async attachIdempotencyOrder(_db, storeId, key, orderId) {
      const record = records.get(`${storeId}/${key}`);
      if (!record || record.order_id !== null) return false;
      record.order_id = orderId;
      return true;
    },
    async completeIdempotencyKey(_db, storeId, key, orderId, response) {
      calls.push("complete");
      const record = records.get(`${storeId}/${key}`)!;
      record.order_id = orderId;
      record.response = response;
    },
    async releaseIdempotencyKey(_db, storeId, key) {
      calls.push("release");
      const record = records.get(`${storeId}/${key}`);
      if (record && record.response === null && record.order_id === null) records.delete(`${storeId}/${key}`);
    },
    async purgeIdempotencyKeys() {},
  };
  return { store, records, calls };
}

const pool = {} as Pool;

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
  const { store, calls } = memoryStore();
  const made: string[] = [];
  const response = await createIdempotency({ sql: pool, store }).run(STORE, undefined, "h", steps(made));
  t.is(response.detail?.order?.id, ORDER);
  t.deepEqual(made, [ORDER]);
  t.deepEqual(calls, []);
});

test("run: the first request creates and stores its answer; the same body replays it; another body is refused", async (t) => {
  const { store, records } = memoryStore();
  const idempotency = createIdempotency({ sql: pool, store });
  const made: string[] = [];
  const first = await idempotency.run(STORE, "k", "h1", steps(made));
  t.false(first.replayed);
  t.deepEqual(records.get(`${STORE}/k`)?.response, recordOf(first));

  const again = await idempotency.run(STORE, "k", "h1", steps(made));
  t.true(again.replayed);
  t.is(again.detail?.order?.id, ORDER);
  t.deepEqual(made, [ORDER]);

  const other = await t.throwsAsync(idempotency.run(STORE, "k", "h2", steps(made)), { instanceOf: ConnectError });
  t.is(other.code, Code.AlreadyExists);
  t.deepEqual(made, [ORDER]);
});

test("run: a failed create frees the key so a corrected retry can use it", async (t) => {
  const { store, records, calls } = memoryStore();
  const idempotency = createIdempotency({ sql: pool, store });
  const boom = new Error("refused");
  await t.throwsAsync(
    idempotency.run(STORE, "k", "h", { ...steps([]), create: async () => Promise.reject(boom) }),
    { is: boom },
  );
  t.false(records.has(`${STORE}/k`));
  t.deepEqual(calls, ["claim", "release"]);
  const made: string[] = [];
  t.false((await idempotency.run(STORE, "k", "h", steps(made))).replayed);
  t.deepEqual(made, [ORDER]);
});

test("run: a failure after the order exists keeps the key (no release)", async (t) => {
  const { store, records, calls } = memoryStore();
  const idempotency = createIdempotency({ sql: pool, store });
  await t.throwsAsync(
    idempotency.run(STORE, "k", "h", {
      ...steps([]),
      respond: async () => {
        throw new Error("gateway exploded");
      },
    }),
  );
  t.true(records.has(`${STORE}/k`));
  t.false(calls.includes("release"));
});

test("run: a stale in-flight request with an order is answered for and completed, replayed", async (t) => {
  const { store, records } = memoryStore();
  records.set(`${STORE}/k`, { request_hash: "h", response: null, order_id: ORDER, stale: true });
  const made: string[] = [];
  const response = await createIdempotency({ sql: pool, store }).run(STORE, "k", "h", steps(made));
  t.true(response.replayed);
  t.is(response.detail?.order?.id, ORDER);
  t.deepEqual(made, []);
  t.deepEqual(records.get(`${STORE}/k`)?.response, recordOf({ ...response, replayed: false }));
});

test("run: a live in-flight request is refused with ALREADY_EXISTS", async (t) => {
  const { store, records } = memoryStore();
  records.set(`${STORE}/k`, { request_hash: "h", response: null, order_id: null, stale: false });
  const error = await t.throwsAsync(createIdempotency({ sql: pool, store }).run(STORE, "k", "h", steps([])), { instanceOf: ConnectError });
  t.is(error.code, Code.AlreadyExists);
  t.regex(error.message, /still in flight/);
});

test("attach refuses a key another request already tied to its order", async (t) => {
  const { store, records } = memoryStore();
  const idempotency = createIdempotency({ sql: pool, store });
  records.set(`${STORE}/k`, { request_hash: "h", response: null, order_id: null, stale: false });
  await idempotency.attach(pool, STORE, "k", ORDER);
  const error = await t.throwsAsync(idempotency.attach(pool, STORE, "k", "88888888-8888-4888-8888-888888888888"), { instanceOf: ConnectError });
  t.is(error.code, Code.AlreadyExists);
  t.is(error.rawMessage, KEY_TAKEN_MESSAGE);
});
