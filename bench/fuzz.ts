// `npm run fuzz -- --seed N --count N`: the HTTP fuzzer (test/helpers/fuzz.ts) against a
// freshly started in-process stack (catalog, order, gateway; real PostgreSQL from
// TEST_POSTGRES_URL or 127.0.0.1:5432). Prints the status mix, every class of finding
// with a reproduction, and whether the order tables hold any partial write.
//   --seed N          PRNG seed (default 1, or FUZZ_SEED)
//   --count N         requests (default 10000, or FUZZ_COUNT)
//   --concurrency N   requests in flight (default 8)
//   --only 1,2,3      replay just these indexes of the seed
//   --routes a,b      only these route families (see ROUTE_FAMILIES)
//   --all             print every finding, not one example per class
//   --json FILE       write the full result as JSON
//   --logs            show the stack's error logs (TEST_LOG_LEVEL=error)
//   --same-thread     run the fuzzer on the stack's thread (default: a worker thread)
import { writeFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import {
  classifyFindings,
  describeFinding,
  formatClasses,
  orderTableCounts,
  partialWrites,
  prepareFuzzStores,
  ROUTE_FAMILIES,
  runFuzz,
  runFuzzInWorker,
  type RouteFamily,
} from "../test/helpers/fuzz.js";

const { values: args } = parseArgs({
  options: {
    seed: { type: "string", default: process.env.FUZZ_SEED ?? "1" },
    count: { type: "string", default: process.env.FUZZ_COUNT ?? "10000" },
    concurrency: { type: "string", default: "8" },
    only: { type: "string" },
    routes: { type: "string" },
    all: { type: "boolean", default: false },
    json: { type: "string" },
    logs: { type: "boolean", default: false },
    "same-thread": { type: "boolean", default: false },
  },
});
if (args.logs) process.env.TEST_LOG_LEVEL = "error";
const { startStack } = await import("../test/helpers/stack.js");

const routes = args.routes?.split(",").map((r) => r.trim()) as RouteFamily[] | undefined;
for (const route of routes ?? []) {
  if (!ROUTE_FAMILIES.includes(route)) throw new Error(`unknown route family ${route}; one of ${ROUTE_FAMILIES.join(", ")}`);
}

const started = Date.now();
const stack = await startStack({ ratePerMinute: 1_000_000, authFailuresPerMinute: 1_000_000 });
let failed = false;
try {
  const stores = await prepareFuzzStores(stack);
  const before = await orderTableCounts(stack.orderSql);
  const result = await (args["same-thread"] ? runFuzz : runFuzzInWorker)({
    baseUrl: stack.baseUrl,
    key: stores.key,
    otherStoreKey: stores.otherStoreKey,
    seed: Number(args.seed),
    count: Number(args.count),
    concurrency: Number(args.concurrency),
    only: args.only?.split(",").map(Number),
    targets: { ...stores.targets, routes },
    onProgress: (done, total) => process.stderr.write(`\r${done}/${total}`),
    progressEvery: 500,
  });
  process.stderr.write("\n");
  const after = await orderTableCounts(stack.orderSql);
  const problems = await partialWrites(stack.orderSql, result.createdOrderIds, before);

  console.log(`seed ${result.seed}: ${result.requests} requests in ${(result.durationMs / 1000).toFixed(1)} s (whole run ${((Date.now() - started) / 1000).toFixed(1)} s)`);
  console.log("\nslowest requests:");
  for (const slow of result.slowest.slice(0, 10)) console.log(`  ${String(slow.ms).padStart(6)} ms  #${slow.index} ${slow.route} ${slow.status}  ${slow.mutations.join(" | ").slice(0, 160)}`);
  if (Number(args.concurrency) === 1) {
    console.log("\nCPU by route family (ms):", JSON.stringify(Object.fromEntries(Object.entries(result.cpuByFamily).map(([k, v]) => [k, Math.round(v)]))));
    for (const c of result.costliest.slice(0, 15)) console.log(`  ${String(c.cpuMs).padStart(7)} ms CPU  #${c.index} ${c.route}  ${c.tag.slice(0, 140)}`);
  }
  console.log("\nstatus mix:");
  for (const [label, n] of Object.entries(result.statusCounts).sort()) console.log(`  ${String(n).padStart(6)}  ${label}`);
  console.log(`\norders: ${result.created201} answers 201, ${result.createdOrderIds.length} distinct ids; tables before ${JSON.stringify(before)} after ${JSON.stringify(after)}`);
  console.log(problems.length === 0 ? "no partial writes" : `PARTIAL WRITES (${problems.length}):\n  ${problems.slice(0, 50).join("\n  ")}`);

  const classes = classifyFindings(result.findings);
  const byKind = result.findings.reduce<Record<string, number>>((out, f) => ({ ...out, [f.kind]: (out[f.kind] ?? 0) + 1 }), {});
  console.log(`\nfindings: ${result.findings.length} ${JSON.stringify(byKind)} in ${classes.length} classes\n`);
  console.log(args.all ? result.findings.map(describeFinding).join("\n\n") : formatClasses(classes));
  if (args.json) await writeFile(args.json, JSON.stringify({ ...result, classes, partialWrites: problems, before, after }, null, 2));
  failed = problems.length > 0 || result.findings.some((f) => f.kind !== "contract");
} finally {
  await stack.close();
}
process.exitCode = failed ? 1 : 0;
