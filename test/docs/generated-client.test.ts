// A client generated from the served document with @hey-api/openapi-ts, as an integrator
// would make one, compiles with `tsc --strict` and drives the main flows against a real
// stack (test/docs/generated-client/driver.ts). Every answer the client gets is checked
// against the document as well (assertDocumented), as api() checks the other tests'.
// Generation reads node_modules only; one tsc run compiles the client and the driver.
import { execFile } from "node:child_process";
import { copyFile, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import test from "ava";
import { createClient } from "@hey-api/openapi-ts";
import { api } from "../helpers/http.js";
import { assertDocumented } from "../helpers/openapi.js";
import { createProduct, createStore, startStack, type Stack } from "../helpers/stack.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");
const require = createRequire(import.meta.url);
const tsc = require.resolve("typescript/bin/tsc");

let stack: Stack;
let dir: string;

test.before(async () => {
  stack = await startStack({ webhooks: { bus: "in-process" } });
  dir = await mkdtemp(path.join(os.tmpdir(), "generated-client-"));
});
test.after.always(async () => {
  await stack?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** fetch, with every answer checked against the document before the client reads it. */
const checkedFetch: typeof fetch = async (input, init) => {
  const request = new Request(input, init);
  const response = await fetch(request);
  const text = await response.clone().text();
  let body: unknown;
  try {
    body = text === "" ? undefined : JSON.parse(text);
  } catch {}
  const url = new URL(request.url);
  assertDocumented(request.method, url.pathname + url.search, { status: response.status, headers: response.headers, body, text });
  return response;
};

test("a client generated from the served document compiles with tsc --strict and drives the main flows", async (t) => {
  const shop = await createStore(stack);
  await createProduct(stack, shop.storeId, "Kopi Arabika", 85_000);

  // Generated from the document as served, as an integrator would.
  const served = await api(stack.baseUrl, "/v1/openapi.json");
  t.is(served.status, 200);
  await writeFile(path.join(dir, "openapi.json"), served.text);
  await createClient({ input: path.join(dir, "openapi.json"), output: { path: path.join(dir, "client") }, logs: { level: "silent" } });

  await copyFile(path.join(here, "generated-client/driver.ts"), path.join(dir, "driver.ts"));
  await writeFile(path.join(dir, "package.json"), JSON.stringify({ type: "module" }));
  await writeFile(
    path.join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noUncheckedIndexedAccess: true,
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        // The generated client is written for fetch as browsers type it (BodyInit).
        lib: ["ES2023", "DOM", "DOM.Iterable"],
        types: ["node"],
        typeRoots: [path.join(root, "node_modules/@types")],
        skipLibCheck: true,
        rootDir: ".",
        outDir: "out",
      },
      include: ["driver.ts", "client/**/*.ts"],
    }),
  );
  const compiled = await promisify(execFile)(process.execPath, [tsc, "-p", dir]).then(
    () => "",
    (error: { stdout?: string; stderr?: string; message: string }) => `${error.stdout ?? ""}${error.stderr ?? ""}` || error.message,
  );
  t.is(compiled, "", "tsc --strict compiles the generated client and the driver");
  if (compiled !== "") return;

  const { drive } = (await import(pathToFileURL(path.join(dir, "out/driver.js")).href)) as { drive: (input: object) => Promise<any> };
  const report = await drive({
    baseUrl: stack.baseUrl,
    key: shop.key,
    fetch: checkedFetch,
    markPaid: async (orderId: string) => {
      await stack.orders.markOrderPaid({ storeId: shop.storeId, orderId });
    },
    runId: shop.storeId.slice(0, 8),
  });

  t.true(report.paymentMethods.includes("bank_transfer"));
  const order = report.created.order;
  t.is(order.status, "pending");
  t.is(order.items[0].product_id, report.productId);
  t.is(order.subtotal, 170_000);
  t.is(report.created.payment.seller_bank.transfer_amount, order.amount);
  t.is(report.replayed, "true", "the same Idempotency-Key and body answer the first order again");
  t.is(report.read.order.id, order.id);
  t.true(report.listedIds.includes(order.id));
  t.false(report.afterFirst.includes(order.id), "starting_after pages past the order");
  t.is(report.refund.refund.status, "succeeded");
  t.is(report.refund.refund.amount, 1_000);
  t.is(report.refund.order.refunded_amount, 1_000);
  t.deepEqual(report.missing, { status: 404, error: "NOT_FOUND" });
  t.deepEqual(report.metadata, { cart: "c-1", erp_id: "SO-991" }, "PATCH sets one key and removes another");
  t.like(report.cancelled, { status: "cancelled", livemode: true });
  t.true(report.eventTypes.includes("order.cancelled"), "the cancellation is among the order's events");
  t.true(report.synced.includes(order.id) && report.synced.includes(report.cancelled.id), "a sync from before both lists both");
  t.is(typeof report.syncCursor, "string", "and gives the cursor to go on from");
});
