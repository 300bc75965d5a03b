// `store-admin status` against a real `npm start` (cli/start.ts) on another PORT, run as a
// newcomer runs it: in a second terminal, from the same checkout, without PORT. It finds
// the gateway where `npm start` said it listens (docs/cli.md#how-it-runs).
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import test from "ava";
import { createCliRunner } from "../helpers/cli.js";
import { createTestDatabase, type TestDatabase } from "../helpers/db.js";
import { freePort, spawnEntry, type Spawned } from "../helpers/process.js";

let db: TestDatabase | undefined;
let dataDir: string | undefined;
let start: Spawned | undefined;
test.after.always(async () => {
  await start?.stop("SIGTERM");
  await db?.drop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

test("status finds and reports ready the gateway npm start runs on another PORT, without being given PORT", async (t) => {
  t.timeout(180_000);
  db = await createTestDatabase();
  dataDir = await mkdtemp(path.join(os.tmpdir(), "status-"));
  const [port, catalog, order, webhook] = await Promise.all(Array.from({ length: 4 }, () => freePort()));
  const addrs = { CATALOG_ADDR: `http://127.0.0.1:${catalog}`, ORDER_ADDR: `http://127.0.0.1:${order}`, WEBHOOK_ADDR: `http://127.0.0.1:${webhook}` };
  // INTERNAL_TOKEN unset: npm start makes one in DATA_DIR, where store-admin finds it too.
  start = spawnEntry("cli/start.ts", { DATABASE_URL: db.url, DATA_DIR: dataDir, PORT: String(port), INTERNAL_TOKEN: undefined, LOG_LEVEL: "warn", ...addrs });
  await start.waitFor(/Store Order API listening on (\S+)/, 90_000);

  const runner = createCliRunner(() => ({ ...addrs, DATA_DIR: dataDir, INTERNAL_TOKEN: undefined, PORT: undefined, HOST: undefined, GATEWAY_URL: undefined }), { spawn: true });
  const result = await runner.run(["status"]);
  t.is(result.code, 0, `${result.stdout}\n${result.stderr}`);
  const report = JSON.parse(result.stdout);
  t.like(report.gateway, { address: `http://127.0.0.1:${port}`, status: "READY" });
  for (const role of ["catalog", "order", "webhook"]) t.is(report[role].status, "SERVING", role);
});
