// A configuration that cannot run stops every entry point at once (docs/architecture.md#configuration, docs/payments.md#switching-to-midtrans):
// one `fatal` JSON line naming the variable, exit 1, no stack, no database touched.
import test from "ava";
import { spawnEntry, type Spawned } from "../helpers/process.js";

const ENTRIES = {
  gateway: "gateway/main.ts",
  order: "services/order/main.ts",
  catalog: "services/catalog/main.ts",
  webhook: "services/webhook/main.ts",
  start: "cli/start.ts",
} as const;

// Nothing listens on port 1: a process that got past its configuration would wait
// here for a database (and the test time out) instead of exiting.
const NO_DATABASE = "postgres://postgres@127.0.0.1:1/none";

/** Runs `entry` with `env` (over a clean slate for the variables that matter) and waits for its exit. */
async function run(entry: string, env: Record<string, string | undefined>): Promise<{ code: number | null; lines: string[] }> {
  const child: Spawned = spawnEntry(entry, {
    DATABASE_URL: NO_DATABASE,
    NATS_URL: undefined,
    PAYMENT_GATEWAY: undefined,
    MIDTRANS_SERVER_KEY: undefined,
    LOG_LEVEL: "info",
    ...env,
  });
  const timer = setTimeout(() => child.child.kill("SIGKILL"), 30_000);
  const code = await child.exited;
  clearTimeout(timer);
  return { code, lines: child.output().split("\n").filter((line) => line.trim() !== "") };
}

function fatalLine(t: import("ava").ExecutionContext, lines: string[]): any {
  t.is(lines.length, 1, `exactly one line:\n${lines.join("\n")}`);
  let parsed: any;
  t.notThrows(() => (parsed = JSON.parse(lines[0] ?? "")), lines[0]);
  t.is(parsed?.level, "fatal");
  t.false(lines.join("\n").includes("    at "), "no stack");
  return parsed;
}

for (const [role, entry] of Object.entries(ENTRIES)) {
  test(`${role}: PAYMENT_GATEWAY=midtrans without MIDTRANS_SERVER_KEY is one fatal line naming it, exit 1`, async (t) => {
    const { code, lines } = await run(entry, { PAYMENT_GATEWAY: "midtrans" });
    t.is(code, 1, lines.join("\n"));
    const line = fatalLine(t, lines);
    t.regex(line.msg, /MIDTRANS_SERVER_KEY/);
    t.deepEqual(line.variables, ["MIDTRANS_SERVER_KEY"]);
    t.is(line.service, role);
  });
}

test("the sandbox's default key is refused for midtrans the same way", async (t) => {
  const { code, lines } = await run(ENTRIES.order, { PAYMENT_GATEWAY: "midtrans", MIDTRANS_SERVER_KEY: "sandbox-server-key" });
  t.is(code, 1, lines.join("\n"));
  const line = fatalLine(t, lines);
  t.deepEqual(line.variables, ["MIDTRANS_SERVER_KEY"]);
  t.regex(line.msg, /sandbox default/);
});

test("any invalid variable, LOG_LEVEL included, gets the same single fatal line", async (t) => {
  const { code, lines } = await run(ENTRIES.gateway, { LOG_LEVEL: "loud", PORT: "not-a-port" });
  t.is(code, 1, lines.join("\n"));
  const line = fatalLine(t, lines);
  t.deepEqual([...line.variables].sort(), ["LOG_LEVEL", "PORT"]);
});

for (const [role, variable] of [["catalog", "CATALOG_ADDR"], ["order", "ORDER_ADDR"], ["webhook", "WEBHOOK_ADDR"]] as const) {
  test(`${role}: listening beyond loopback without INTERNAL_TOKEN is one fatal line naming it, exit 1`, async (t) => {
    const { code, lines } = await run(ENTRIES[role], { INTERNAL_TOKEN: undefined, [variable]: "http://0.0.0.0:50051" });
    t.is(code, 1, lines.join("\n"));
    const line = fatalLine(t, lines);
    t.deepEqual(line.variables, ["INTERNAL_TOKEN"]);
    t.regex(line.msg, /INTERNAL_TOKEN: must be set: this service listens on 0\.0\.0\.0/);
    t.is(line.service, role);
  });
}
