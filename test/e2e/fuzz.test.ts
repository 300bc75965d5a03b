// The seeded HTTP fuzzer (test/helpers/fuzz.ts) against the whole stack in this process:
// ≥ 10,000 mutated requests over every route of the gateway, then docs/api.md's
// robustness rules: no 5xx, every /v1 answer the JSON envelope, and no partial write in
// the order service's tables (every order row is one a 201 named, with its items,
// history and outbox events).
//   FUZZ_SEED=N FUZZ_COUNT=N FUZZ_CONCURRENCY=N npx ava test/e2e/fuzz.test.ts
// The run is cut into a few serial tests so that each reports on its own (and AVA's
// inactivity timeout sees progress). A finding names its seed and index:
// `npm run fuzz -- --seed S --only I` sends that request again against a fresh stack
// and prints it as a curl line.
import test from "ava";
import {
  classifyFindings,
  formatClasses,
  orderTableCounts,
  partialWrites,
  prepareFuzzStores,
  runFuzzInWorker,
  type FuzzFinding,
  type TableCounts,
} from "../helpers/fuzz.js";
import { startStack, type Stack } from "../helpers/stack.js";

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_122);
const COUNT = Number(process.env.FUZZ_COUNT ?? 10_000);
const CONCURRENCY = Number(process.env.FUZZ_CONCURRENCY ?? 8);
const CHUNKS = Math.max(1, Math.min(8, Math.ceil(COUNT / 2_500)));

let stack: Stack;
let stores: Awaited<ReturnType<typeof prepareFuzzStores>>;
let before: TableCounts;
const createdOrderIds = new Set<string>();
let created201 = 0;
let sent = 0;
const started = Date.now();

test.before(async () => {
  // Rate limits far above the run, so 429s do not stand in for real answers.
  stack = await startStack({ ratePerMinute: 1_000_000, authFailuresPerMinute: 1_000_000 });
  stores = await prepareFuzzStores(stack);
  before = await orderTableCounts(stack.orderSql);
});
test.after.always(async () => {
  await stack?.close();
});

/** A /v1 request (not a hand-made malformed one) whose answer breaks the envelope rule. */
function v1EnvelopeBreach(f: FuzzFinding): boolean {
  if (f.route.startsWith("RAW ")) return false;
  const onV1 = f.route.split(" ")[1]?.startsWith("/v1") === true || f.target.startsWith("/v1");
  return onV1 && (f.kind === "no-envelope" || f.kind === "bad-envelope" || f.kind === "no-response");
}

const summary = (findings: FuzzFinding[]) =>
  classifyFindings(findings).map((c) => `${c.count}× ${c.key} (e.g. index ${c.example.index}: ${c.example.mutations.join(" | ") || "no mutation"})`);

for (let chunk = 0; chunk < CHUNKS; chunk++) {
  const from = Math.floor((COUNT * chunk) / CHUNKS);
  const to = Math.floor((COUNT * (chunk + 1)) / CHUNKS);
  test.serial(`fuzz seed ${SEED}, requests ${from}–${to - 1}: no 5xx, every /v1 answer an envelope`, async (t) => {
    t.timeout(180_000);
    const result = await runFuzzInWorker({
      baseUrl: stack.baseUrl,
      key: stores.key,
      otherStoreKey: stores.otherStoreKey,
      seed: SEED,
      count: to - from,
      only: Array.from({ length: to - from }, (_, i) => from + i),
      concurrency: CONCURRENCY,
      targets: stores.targets,
    });
    for (const id of result.createdOrderIds) createdOrderIds.add(id);
    created201 += result.created201;
    sent += result.requests;
    t.log(`${result.requests} requests in ${(result.durationMs / 1000).toFixed(1)} s; ${result.created201} answers 201`);
    const classes = classifyFindings(result.findings);
    if (classes.length > 0) t.log(`${result.findings.length} findings in ${classes.length} classes:\n\n${formatClasses(classes)}`);

    t.is(result.requests, to - from);
    t.deepEqual(summary(result.findings.filter((f) => f.kind === "server-error")), [], "no request is answered with a 5xx");
    t.deepEqual(summary(result.findings.filter(v1EnvelopeBreach)), [], "every /v1 answer is the JSON envelope");
  });
}

test.serial("no partial write: every order row is one a 201 named, complete with items, history and outbox", async (t) => {
  const after = await orderTableCounts(stack.orderSql);
  t.log(`seed ${SEED}: ${sent} requests (plus setup), whole file ${((Date.now() - started) / 1000).toFixed(1)} s`);
  t.log(`orders: ${created201} answers 201 naming ${createdOrderIds.size} orders; tables ${JSON.stringify(before)} → ${JSON.stringify(after)}`);
  t.true(sent >= COUNT, `sent ${sent} of ${COUNT}`);
  t.deepEqual(await partialWrites(stack.orderSql, [...createdOrderIds], before), []);
  t.is(after.orders - before.orders, createdOrderIds.size, "orders made == distinct order ids from 201 answers");
});
