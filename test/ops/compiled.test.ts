// The image runs compiled JavaScript (docs/operations.md#the-image): `npm run build` once, into a
// temporary directory laid out as the image's /app (package.json, node_modules, dist/),
// never the checkout's dist/, so test runs side by side cannot meet. Then, with plain
// node and no TypeScript loader:
//  - the output holds every entry, the migrations beside the code that reads them, and
//    imports nothing but Node's modules, its own files and production dependencies;
//  - each role runs from its compose command and variables against local PostgreSQL
//    and NATS; the compose healthchecks (dist/cli/probe.js) pass; metrics are on each
//    role's METRICS_PORT and not on the gateway's public port; `store-admin seed`
//    (as the compose file tells operators) gives a key that creates and reads an order;
//  - `node dist/cli/start.js` (the image's default command) prints a demo key that
//    works, and a metrics port that shows every role's series.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { copyFile, mkdtemp, rm, symlink } from "node:fs/promises";
import { builtinModules } from "node:module";
import os from "node:os";
import path from "node:path";
import test, { type ExecutionContext } from "ava";
import ts from "typescript";
import { createTestDatabase } from "../helpers/db.js";
import { api, waitFor } from "../helpers/http.js";
import { SHARED_NATS_URL, uniqueBusNames } from "../helpers/nats.js";
import { freePort, ROOT, spawnProcess, type Spawned } from "../helpers/process.js";
import { buyer } from "../helpers/stack.js";
import { containerCommand, environmentOf, healthcheckCommand, imageDefaultCommand, ROLES, type Role } from "../helpers/compose.js";

const packageJson = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8"));
const ENTRIES = ["gateway/main.js", "services/catalog/main.js", "services/order/main.js", "services/webhook/main.js", "cli/start.js", "cli/store-admin.js", "cli/probe.js"];
/** No loader reaches the children, whatever this process was started with. */
const PLAIN_NODE = { NODE_OPTIONS: "" };

let app: Promise<string> | undefined;
const cleanups: (() => Promise<unknown>)[] = [];
test.after.always(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
});

/** The image's /app, built once for this file: its directory. */
function builtApp(): Promise<string> {
  app ??= (async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "compiled-"));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    // As in the image: package.json ("type": "module") beside node_modules and dist/.
    await copyFile(path.join(ROOT, "package.json"), path.join(dir, "package.json"));
    await symlink(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"), "dir");
    const started = Date.now();
    // At the lowest CPU priority: the compiler's half-minute of CPU otherwise starves the
    // other test files running beside it on a 2-core machine (their deadlines ran out).
    const build = spawnProcess("nice", ["-n", "19", process.execPath, path.join(ROOT, "scripts/build.js"), "--out-dir", path.join(dir, "dist")], PLAIN_NODE);
    const code = await build.exited;
    if (code !== 0) throw new Error(`npm run build failed (exit ${code}):\n${build.output()}`);
    if (process.env.COMPILED_DEBUG) console.error(`built in ${Date.now() - started} ms`);
    return dir;
  })();
  return app;
}

/** Every file under `dir`, relative to it. */
function filesUnder(dir: string, base = dir): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full, base) : [path.relative(base, full)];
  });
}

/** The npm package a bare import names: "@scope/name/sub" → "@scope/name", "name/sub" → "name". */
const packageOf = (specifier: string) => specifier.split("/").slice(0, specifier.startsWith("@") ? 2 : 1).join("/");

test("the build holds every entry, the migrations beside their code, and imports only its own files and production dependencies", async (t) => {
  t.timeout(300_000);
  const dist = path.join(await builtApp(), "dist");
  for (const entry of ENTRIES) t.true(existsSync(path.join(dist, entry)), `${entry} built`);

  const sources = ["services", "gateway"].flatMap((dir) => filesUnder(path.join(ROOT, dir)).map((file) => path.join(dir, file)));
  const migrations = sources.filter((file) => /\/migrations\/[^/]+\.sql$/.test(file));
  t.true(migrations.length >= 4, "the roles' migrations found");
  for (const file of migrations) t.true(existsSync(path.join(dist, file)), `${file} beside its compiled code`);

  const files = filesUnder(dist);
  t.false(files.some((file) => /\.tsx?$/.test(file)), "no TypeScript in the output");
  const production = new Set(Object.keys(packageJson.dependencies));
  const foreign = new Set<string>();
  const unresolved: string[] = [];
  for (const file of files.filter((name) => name.endsWith(".js"))) {
    const text = readFileSync(path.join(dist, file), "utf8");
    for (const { fileName: specifier } of ts.preProcessFile(text, true, true).importedFiles) {
      if (specifier.startsWith(".")) {
        // ESM under plain node needs the exact file: the `.js` the compiler wrote.
        if (!existsSync(path.join(dist, path.dirname(file), specifier))) unresolved.push(`${file} → ${specifier}`);
      } else if (!specifier.startsWith("node:") && !builtinModules.includes(specifier) && !production.has(packageOf(specifier))) {
        foreign.add(`${packageOf(specifier)} (${file})`);
      }
    }
  }
  t.deepEqual(unresolved, [], "every relative import names a file of the output");
  t.deepEqual([...foreign], [], "every package imported is a production dependency (the image has no others)");
});

/** The compose environment of `role`, with the containers' host names and ports swapped for this machine's. */
function localEnvironment(role: Role, local: { db: string; ports: Record<string, number> }): Record<string, string> {
  const { ports } = local;
  const localise = (value: string) =>
    value
      .replace("postgres://postgres:postgres@postgres:5432/store", local.db)
      .replace("nats://nats:4222", SHARED_NATS_URL)
      .replace(/http:\/\/(catalog|0\.0\.0\.0):50051/, `http://127.0.0.1:${ports.catalog}`)
      .replace(/http:\/\/(order|0\.0\.0\.0):50052/, `http://127.0.0.1:${ports.order}`)
      .replace(/http:\/\/(webhook|0\.0\.0\.0):50053/, `http://127.0.0.1:${ports.webhook}`)
      .replace(/^8080$/, String(ports.gateway))
      .replace("http://localhost:8080", `http://127.0.0.1:${ports.gateway}`);
  const env = Object.fromEntries(Object.entries(environmentOf(role)).map(([name, value]) => [name, localise(value)]));
  // Each role's metrics on a port of its own here (9464 in every container there).
  env.METRICS_PORT = String(ports[`${role}Metrics`]);
  return env;
}

/** A compose healthcheck, run as its container would (its loopback ports swapped for this machine's). */
async function runHealthcheck(role: Role, dir: string, ports: Record<string, number>) {
  const [command, ...args] = healthcheckCommand(role);
  const local = args.map((arg) =>
    arg.replace(/^http:\/\/127\.0\.0\.1:(50051|50052|50053|8080)/, (_match, port: string) => {
      const name = { "50051": "catalog", "50052": "order", "50053": "webhook", "8080": "gateway" }[port]!;
      return `http://127.0.0.1:${ports[name]}`;
    }),
  );
  const probe = spawnProcess(command === "node" ? process.execPath : command!, local, PLAIN_NODE, dir);
  return { code: await probe.exited, output: probe.output().trim() };
}

/** One sample of Prometheus text, or undefined. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split("\n")) {
    const match = /^([a-z_]+)\{(.*)\} ([0-9.e+-]+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = Object.fromEntries([...match[2]!.matchAll(/([a-z_]+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([key, value]) => present[key] === value)) return Number(match[3]);
  }
  return undefined;
}

/** A bank-transfer order for one of `productId`, created and read back through the public API. */
async function orderThroughApi(t: ExecutionContext, baseUrl: string, key: string, productId: string) {
  const created = await api(baseUrl, "/v1/orders", {
    method: "POST",
    key,
    json: { items: [{ product_id: productId, quantity: 2 }], buyer, payment_method: "bank_transfer" },
  });
  t.is(created.status, 201, created.text);
  const id = created.body?.data?.order?.id as string;
  const read = await api(baseUrl, `/v1/orders/${id}`, { key });
  t.is(read.status, 200, read.text);
  t.is(read.body?.data?.order?.id, id);
  t.is(read.body?.data?.order?.status, "pending");
}

test.serial("each role runs from its compose command with plain node: healthchecks, metrics off the public port, a seeded store takes an order", async (t) => {
  t.timeout(300_000);
  const dir = await builtApp();
  const db = await createTestDatabase();
  cleanups.push(() => db.drop());
  const names = uniqueBusNames();
  const portNames = ["catalog", "order", "webhook", "gateway", ...ROLES.map((role) => `${role}Metrics`)];
  const ports: Record<string, number> = Object.fromEntries(await Promise.all(portNames.map(async (name) => [name, await freePort()])));
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "compiled-data-"));
  cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
  const envOf = (role: Role) => ({ ...localEnvironment(role, { db: db.url, ports }), ...names, DATA_DIR: dataDir, ...PLAIN_NODE });
  const running: Spawned[] = [];
  try {
    for (const role of ROLES) {
      const [command, ...args] = containerCommand(role);
      t.is(command, "node");
      const child = spawnProcess(process.execPath, args, envOf(role), dir);
      running.push(child);
      await child.waitFor(new RegExp(`"msg":"${role} listening"`), 60_000);
      await child.waitFor(/"msg":"metrics listening"/, 10_000);
    }

    // The compose healthchecks: the compiled probe, as each container runs it.
    for (const role of ["catalog", "order", "webhook"] as const) {
      const { code, output } = await runHealthcheck(role, dir, ports);
      t.is(code, 0, `${role} healthcheck: ${output}`);
      t.is(output, "SERVING");
    }
    let gatewayCheck = { code: null as number | null, output: "" };
    await waitFor(async () => (gatewayCheck = await runHealthcheck("gateway", dir, ports)).code === 0, 20_000, 250).catch(() => {});
    t.is(gatewayCheck.code, 0, `gateway healthcheck: ${gatewayCheck.output}`);
    const baseUrl = `http://127.0.0.1:${ports.gateway}`;
    const ready = await api(baseUrl, "/readyz");
    t.deepEqual(Object.keys(ready.body?.data?.checks ?? {}).sort(), ["catalog", "database", "nats", "order", "webhook"], ready.text);

    // The operator's way in, as the compose file says: store-admin in the catalog's container.
    const seed = spawnProcess(process.execPath, ["dist/cli/store-admin.js", "seed"], envOf("catalog"), dir);
    t.is(await seed.exited, 0, seed.output());
    const demo = JSON.parse(seed.output().slice(seed.output().indexOf("{"))) as { key: string; product_ids: string[] };
    await orderThroughApi(t, baseUrl, demo.key, demo.product_ids[0]!);
    const status = spawnProcess(process.execPath, ["dist/cli/store-admin.js", "status"], { ...envOf("catalog"), GATEWAY_URL: baseUrl }, dir);
    t.is(await status.exited, 0, `store-admin status: ${status.output()}`);

    // Metrics: the public port has none; each role's METRICS_PORT has its own.
    const onPublic = await api(baseUrl, "/metrics");
    t.is(onPublic.status, 404);
    t.deepEqual(onPublic.body, { success: false, error: { code: "NOT_FOUND", message: "no route for GET /metrics" } });
    const scrape = async (role: Role) => {
      const response = await fetch(`http://127.0.0.1:${ports[`${role}Metrics`]}/metrics`);
      t.is(response.status, 200, role);
      t.regex(response.headers.get("content-type") ?? "", /^text\/plain/);
      return response.text();
    };
    const gatewayMetrics = await scrape("gateway");
    t.true((sample(gatewayMetrics, "http_requests_total", { route: "/v1/orders", method: "POST", code: "201" }) ?? 0) >= 1, "the gateway counts its requests");
    t.true((sample(gatewayMetrics, "http_requests_total", { route: "/readyz", method: "GET", code: "200" }) ?? 0) >= 1);
    t.true((sample(gatewayMetrics, "rpc_calls_total", { side: "client", service: "order.v1.OrderService", method: "CreateOrder", code: "ok" }) ?? 0) >= 1);
    const orderMetrics = await scrape("order");
    t.true((sample(orderMetrics, "rpc_calls_total", { side: "server", service: "order.v1.OrderService", method: "CreateOrder", code: "ok" }) ?? 0) >= 1);
    t.regex(orderMetrics, /^outbox_backlog_events /m);
    t.true((sample(await scrape("catalog"), "rpc_calls_total", { side: "server", service: "catalog.v1.StoreService", method: "CreateStore", code: "ok" }) ?? 0) >= 1);
    t.regex(await scrape("webhook"), /^# TYPE webhook_attempts_total counter/m);
  } finally {
    for (const child of running.reverse()) t.is(await child.stop("SIGTERM"), 0, `exits 0 on SIGTERM: ${child.output().slice(-1500)}`);
  }
});

test.serial("`node dist/cli/start.js` (the image's default) prints a demo key that works and a metrics port with every role's series", async (t) => {
  t.timeout(300_000);
  const dir = await builtApp();
  const db = await createTestDatabase();
  cleanups.push(() => db.drop());
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "compiled-start-"));
  cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
  const [port, metricsPort, catalog, order, webhook] = await Promise.all(Array.from({ length: 5 }, () => freePort()));
  const [command, ...args] = imageDefaultCommand();
  t.deepEqual([command, ...args], ["node", "dist/cli/start.js"]);
  const start = spawnProcess(
    process.execPath,
    args,
    {
      ...PLAIN_NODE,
      DATABASE_URL: db.url,
      DATA_DIR: dataDir,
      HOST: "127.0.0.1",
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
      CATALOG_ADDR: `http://127.0.0.1:${catalog}`,
      ORDER_ADDR: `http://127.0.0.1:${order}`,
      WEBHOOK_ADDR: `http://127.0.0.1:${webhook}`,
      LOG_LEVEL: "warn",
    },
    dir,
  );
  try {
    const [, metricsUrl] = await start.waitFor(/Metrics of every role \(Prometheus, not on the API's port\): (\S+)/, 60_000);
    t.is(metricsUrl, `http://127.0.0.1:${metricsPort}/metrics`);
    const [, key] = start.output().match(/Demo API key: (sk_live_\w+)/)!;
    const baseUrl = `http://127.0.0.1:${port}`;
    const products = await api(baseUrl, "/v1/products?limit=5", { key });
    t.is(products.status, 200, products.text);
    const product = (products.body?.data?.items ?? []).find((item: { type: string }) => item.type === "product");
    t.truthy(product?.id, products.text);
    await orderThroughApi(t, baseUrl, key!, product.id);

    // Files the code reads at run time beside its modules: the reference's viewer from node_modules.
    const docs = await fetch(`${baseUrl}/docs/assets/swagger-ui.css`);
    t.is(docs.status, 200);
    t.true((await docs.text()).length > 10_000);
    t.is((await api(baseUrl, "/v1/openapi.json")).status, 200);

    t.is((await api(baseUrl, "/metrics")).status, 404, "not on the API's port");
    const text = await (await fetch(metricsUrl!)).text();
    t.true((sample(text, "http_requests_total", { route: "/v1/orders", method: "POST", code: "201" }) ?? 0) >= 1, "the gateway's");
    t.true((sample(text, "rpc_calls_total", { side: "server", service: "order.v1.OrderService", method: "CreateOrder", code: "ok" }) ?? 0) >= 1, "the order service's");
    t.true((sample(text, "rpc_calls_total", { side: "server", service: "catalog.v1.StoreService", method: "CreateStore", code: "ok" }) ?? 0) >= 1, "the catalog's");
    t.regex(text, /^# TYPE webhook_attempts_total counter/m, "the webhook service's");
    t.true((sample(text, "db_connections", { service: "orders" }) ?? 0) >= 1, "connections by role");
  } finally {
    t.is(await start.stop("SIGTERM"), 0, `exits 0 on SIGTERM: ${start.output().slice(-1500)}`);
  }
});
