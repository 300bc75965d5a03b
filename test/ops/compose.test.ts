import test from "ava";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { CONFIG_KEYS, listenAddress, loadConfig } from "../../services/lib/config.js";
import { createTestDatabase } from "../helpers/db.js";
import { api, waitFor } from "../helpers/http.js";
import { SHARED_NATS_URL, uniqueBusNames } from "../helpers/nats.js";
import { freePort, ROOT, spawnProcess, type Spawned } from "../helpers/process.js";

// `merge: true` resolves the `<<: *common-env` merge keys as Docker Compose does.
const compose = parse(readFileSync(path.join(ROOT, "docker-compose.yml"), "utf8"), { merge: true });
const dockerfile = readFileSync(path.join(ROOT, "Dockerfile"), "utf8");
const ROLES = ["catalog", "order", "webhook", "gateway"] as const;
const ENTRY = { catalog: "services/catalog/main.ts", order: "services/order/main.ts", webhook: "services/webhook/main.ts", gateway: "gateway/main.ts" };

/**
 * Compose's variable substitution (`${VAR}`, `${VAR:-default}`, `${VAR-default}`), with
 * `host` as the shell's environment: by default a host that sets nothing.
 */
function interpolate(value: unknown, host: Record<string, string | undefined> = {}): string {
  return String(value).replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)-([^}]*))?\}/g, (_match, name: string, colon: string | undefined, fallback: string | undefined) => {
    const set = host[name];
    if (fallback === undefined) return set ?? "";
    return set === undefined || (colon === ":" && set === "") ? fallback : set;
  });
}

/** A role's environment as its container gets it. */
function environmentOf(role: string, host: Record<string, string | undefined> = {}): Record<string, string> {
  return Object.fromEntries(Object.entries(compose.services[role].environment).map(([name, value]) => [name, interpolate(value, host)]));
}

/** What a container runs: the image's ENTRYPOINT followed by the service's command. */
function containerCommand(role: string): string[] {
  const entrypoint = JSON.parse(/^ENTRYPOINT (\[.*\])$/m.exec(dockerfile)![1]!) as string[];
  return [...entrypoint, ...compose.services[role].command];
}

test("the compose file has postgres, NATS with JetStream, the four roles and a mail catcher, each with a healthcheck and a restart policy", (t) => {
  t.deepEqual(Object.keys(compose.services).sort(), ["catalog", "gateway", "mailpit", "nats", "order", "postgres", "webhook"]);
  t.true(compose.services.nats.command.includes("-js"), "JetStream on");
  t.true("natsdata" in compose.volumes, "JetStream keeps its data in a volume");
  t.true(compose.services.nats.volumes.some((v: string) => v.startsWith("natsdata:")));
  for (const [name, service] of Object.entries<any>(compose.services)) {
    t.truthy(service.healthcheck?.test, `${name} has a healthcheck`);
    t.is(service.restart, "unless-stopped", `${name} comes back by itself after an exit`);
    for (const dependency of Object.values<any>(service.depends_on ?? {})) t.is(dependency.condition, "service_healthy");
  }
  t.deepEqual(compose.services.gateway.ports, ["8080:8080"]);
});

test("every role runs a real entry point, reads only known variables, and its configuration is valid", (t) => {
  t.regex(dockerfile, /^FROM .* AS build$/m, "multi-stage");
  for (const role of ROLES) {
    const service = compose.services[role];
    const command = containerCommand(role);
    t.deepEqual(command.slice(0, 3), ["node", "--import", "tsx"]);
    t.is(command[3], ENTRY[role]);
    t.true(existsSync(path.join(ROOT, command[3]!)), `${command[3]} exists`);
    const env = environmentOf(role);
    for (const name of Object.keys(env)) t.true(CONFIG_KEYS.includes(name), `${role}: ${name} is a configuration variable`);
    const config = loadConfig(env);
    t.truthy(config.DATABASE_URL, `${role} uses the postgres service`);
    t.is(new URL(config.DATABASE_URL!).hostname, "postgres");
    if (role !== "catalog" && role !== "gateway") t.is(config.NATS_URL, "nats://nats:4222");
    const healthScript = service.healthcheck.test.find((part: string) => part.endsWith(".ts"));
    if (healthScript) t.true(existsSync(path.join(ROOT, healthScript)), `${healthScript} exists`);
  }
  // Each service listens where the others dial it.
  for (const [role, key, port] of [["catalog", "CATALOG_ADDR", "50051"], ["order", "ORDER_ADDR", "50052"], ["webhook", "WEBHOOK_ADDR", "50053"]] as const) {
    const own = loadConfig(environmentOf(role));
    t.is(listenAddress(own[key]).port, Number(port));
    t.true(compose.services[role].expose.includes(port));
    for (const other of ROLES.filter((r) => r !== role)) {
      t.is(loadConfig(environmentOf(other))[key], `http://${role}:${port}`, `${other} dials ${role}`);
    }
  }
  t.is(loadConfig(environmentOf("gateway")).PORT, 8080);
});

test("each role starts from its compose command with the compose variables, against local PostgreSQL and NATS", async (t) => {
  const db = await createTestDatabase();
  const names = uniqueBusNames();
  const ports = Object.fromEntries(await Promise.all(["catalog", "order", "webhook", "gateway", "m1", "m2", "m3"].map(async (k) => [k, await freePort()])));
  // The compose environment, with container host names swapped for this machine's.
  const localise = (value: string) =>
    value
      .replace("postgres://postgres:postgres@postgres:5432/store", db.url)
      .replace("nats://nats:4222", SHARED_NATS_URL)
      .replace(/http:\/\/(catalog|0\.0\.0\.0):50051/, `http://127.0.0.1:${ports.catalog}`)
      .replace(/http:\/\/(order|0\.0\.0\.0):50052/, `http://127.0.0.1:${ports.order}`)
      .replace(/http:\/\/(webhook|0\.0\.0\.0):50053/, `http://127.0.0.1:${ports.webhook}`)
      .replace(/^8080$/, String(ports.gateway))
      .replace("http://localhost:8080", `http://127.0.0.1:${ports.gateway}`);
  const metricsPort: Record<string, number> = { catalog: ports.m1, order: ports.m2, webhook: ports.m3 };
  const running: Spawned[] = [];
  try {
    for (const role of ROLES) {
      const env: Record<string, string> = Object.fromEntries(
        Object.entries(environmentOf(role)).map(([name, value]) => [name, localise(value)]),
      );
      if (env.METRICS_PORT) env.METRICS_PORT = String(metricsPort[role]);
      Object.assign(env, names);
      const [command, ...args] = containerCommand(role);
      const child = spawnProcess(command === "node" ? process.execPath : command!, args, env);
      running.push(child);
      await child.waitFor(role === "gateway" ? /gateway listening/ : new RegExp(`${role} listening`), 60_000);
    }
    // The compose healthchecks, as the containers would run them.
    for (const role of ["catalog", "order", "webhook"] as const) {
      const [, ...args] = compose.services[role].healthcheck.test.slice(1);
      const probe = spawnProcess(process.execPath, args.map((a: string) => a.replace(/:5005([123])$/, (_m: string, n: string) => `:${ports[["", "catalog", "order", "webhook"][Number(n)]!]}`)));
      t.is(await probe.exited, 0, `${role} healthcheck: ${probe.output()}`);
    }
    await waitFor(async () => (await api(`http://127.0.0.1:${ports.gateway}`, "/readyz")).status === 200, 20_000);
    const ready = await api(`http://127.0.0.1:${ports.gateway}`, "/readyz");
    t.deepEqual(Object.keys(ready.body.data.checks).sort(), ["catalog", "database", "nats", "order", "webhook"]);
  } finally {
    for (const child of running.reverse()) t.is(await child.stop("SIGTERM"), 0, "exits 0 on SIGTERM");
    await db.drop();
  }
});
