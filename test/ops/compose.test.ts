// docker-compose.yml and the Dockerfile held to the code without a Docker engine: the
// services, their commands (compiled entries run by plain node), healthchecks, ports and
// variables. test/ops/compiled.test.ts builds the code and runs each role from these
// same commands and variables against local PostgreSQL and NATS.
import test from "ava";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { CONFIG_KEYS, listenAddress, loadConfig } from "../../platform/config.js";
import { compose, containerCommand, dockerfile, ENTRY, environmentOf, finalStage, healthcheckCommand, ROLES } from "../helpers/compose.js";
import { ROOT } from "../helpers/process.js";

/** The TypeScript source a compiled path comes from: dist/gateway/main.js → gateway/main.ts. */
const sourceOf = (compiled: string) => compiled.replace(/^dist\//, "").replace(/\.js$/, ".ts");
const packageJson = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8"));

test("the compose file has postgres, NATS with JetStream, the four roles, the proxy and a mail catcher, each with a healthcheck and a restart policy", (t) => {
  // Services of a profile (observability) start only when asked for: test/ops/observability.test.ts.
  const always = Object.entries<any>(compose.services).filter(([, service]) => !service.profiles);
  t.deepEqual(always.map(([name]) => name).sort(), ["catalog", "gateway", "mailpit", "nats", "order", "postgres", "proxy", "webhook"]);
  t.true(compose.services.nats.command.includes("-js"), "JetStream on");
  t.true("natsdata" in compose.volumes, "JetStream keeps its data in a volume");
  t.true(compose.services.nats.volumes.some((v: string) => v.startsWith("natsdata:")));
  for (const [name, service] of always) {
    t.truthy(service.healthcheck?.test, `${name} has a healthcheck`);
    t.is(service.restart, "unless-stopped", `${name} comes back by itself after an exit`);
    for (const dependency of Object.values<any>(service.depends_on ?? {})) t.is(dependency.condition, "service_healthy");
  }
  t.deepEqual(compose.services.proxy.ports, ["8080:8080"], "the API is reached through the proxy");
});

test("every role can be scaled: none publishes a host port, each is dialled by its service name, and the gateways trust only the proxy's network", (t) => {
  for (const role of ROLES) {
    t.deepEqual(compose.services[role].ports ?? [], [], `${role} publishes no port: --scale ${role}=3 cannot clash`);
    t.is(compose.services[role].container_name, undefined, `${role} has no fixed container name`);
  }
  const gatewayEnv = environmentOf("gateway");
  const config = loadConfig(gatewayEnv);
  t.true(compose.services.gateway.expose.includes(String(config.PORT)), "the proxy reaches the gateways on the compose network");
  // Each role dials the others by compose service name: DNS answers every replica.
  for (const [variable, role] of [["CATALOG_ADDR", "catalog"], ["ORDER_ADDR", "order"], ["WEBHOOK_ADDR", "webhook"]] as const) {
    t.is(new URL(config[variable]).hostname, role, `${variable} names the ${role} service`);
  }
  // Docker's networks are private ranges; nothing outside them can pose as the proxy.
  t.deepEqual(config.TRUST_PROXY, ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"]);
  for (const role of ROLES.filter((role) => role !== "gateway")) t.deepEqual(loadConfig(environmentOf(role)).TRUST_PROXY, [], `${role} serves no HTTP clients`);

  const proxy = compose.services.proxy;
  t.regex(proxy.image, /^caddy:\d+\.\d+\.\d+-alpine$/, "a pinned Caddy");
  t.true(proxy.volumes.includes("./deploy/proxy/Caddyfile:/etc/caddy/Caddyfile:ro"));
  t.deepEqual(proxy.depends_on, { gateway: { condition: "service_healthy" } });
});

test("every role runs its compiled entry with plain node, reads only known variables, and its configuration is valid", (t) => {
  t.regex(dockerfile, /^FROM .* AS build$/m, "multi-stage");
  for (const role of ROLES) {
    const command = containerCommand(role);
    t.deepEqual(command, ["node", `dist/${ENTRY[role].replace(/\.ts$/, ".js")}`], `${role}: plain node, no loader`);
    t.true(existsSync(path.join(ROOT, sourceOf(command[1]!))), `${command[1]} is compiled from ${sourceOf(command[1]!)}`);
    const env = environmentOf(role);
    for (const name of Object.keys(env)) t.true(CONFIG_KEYS.includes(name), `${role}: ${name} is a configuration variable`);
    const config = loadConfig(env);
    t.truthy(config.DATABASE_URL, `${role} uses the postgres service`);
    t.is(new URL(config.DATABASE_URL!).hostname, "postgres");
    if (role !== "catalog" && role !== "gateway") t.is(config.NATS_URL, "nats://nats:4222");
  }
  // Each service listens where the others dial it.
  for (const [role, key, port] of [["catalog", "CATALOG_ADDR", "50051"], ["order", "ORDER_ADDR", "50052"], ["webhook", "WEBHOOK_ADDR", "50053"]] as const) {
    // Its own role's rules too: listening on 0.0.0.0 needs the internal token, which compose sets.
    const own = loadConfig(environmentOf(role), role);
    t.is(listenAddress(own[key]).port, Number(port));
    t.true(compose.services[role].expose.includes(port));
    for (const other of ROLES.filter((r) => r !== role)) {
      t.is(loadConfig(environmentOf(other))[key], `http://${role}:${port}`, `${other} dials ${role}`);
    }
  }
  t.is(loadConfig(environmentOf("gateway")).PORT, 8080);
});

test("the image compiles in its build stage and runs the compiled code as node, with production dependencies only", (t) => {
  const build = dockerfile.slice(0, dockerfile.indexOf("\nFROM ", dockerfile.indexOf("AS build")));
  t.regex(build, /^RUN npm run build$/m, "the build stage compiles");
  t.is(packageJson.scripts.build, "node scripts/build.js");
  const image = finalStage();
  t.regex(image, /^ENTRYPOINT \["node"\]$/m);
  t.regex(image, /^CMD \["dist\/cli\/start\.js"\]$/m);
  t.regex(image, /^USER node$/m, "not root");
  t.regex(image, /^COPY --from=build \/app\/dist \.\/dist$/m, "the compiled code");
  t.regex(dockerfile, /npm ci --omit=dev/, "production dependencies");
  t.regex(image, /^COPY --from=deps \/app\/node_modules \.\/node_modules$/m);
  t.false(/tsx|\.ts\b/.test(image.replace(/^#.*$/gm, "")), "no TypeScript loader or source in the image");
  for (const folder of ["gen", "common", "lean-grpc", "platform", "services", "gateway", "cli"]) {
    t.false(new RegExp(`^COPY .*\\b${folder}\\b`, "m").test(image), `the image holds no ${folder}/ source`);
  }
  t.is(packageJson.dependencies.tsx, undefined, "tsx is a development dependency");
  t.truthy(packageJson.devDependencies.tsx);
});

test("healthchecks run the compiled probe: a gRPC health call per service, GET /readyz on the gateway", (t) => {
  for (const [role, port] of [["catalog", "50051"], ["order", "50052"], ["webhook", "50053"]] as const) {
    t.deepEqual(healthcheckCommand(role), ["node", "dist/cli/probe.js", "grpc", `http://127.0.0.1:${port}`], role);
  }
  t.deepEqual(healthcheckCommand("gateway"), ["node", "dist/cli/probe.js", "http", "http://127.0.0.1:8080/readyz"]);
  t.true(existsSync(path.join(ROOT, sourceOf("dist/cli/probe.js"))));
});

test("every role serves /metrics on METRICS_PORT, exposed to the compose network and published nowhere", (t) => {
  for (const role of ROLES) {
    const service = compose.services[role];
    const port = loadConfig(environmentOf(role)).METRICS_PORT;
    t.is(port, 9464, `${role} sets METRICS_PORT`);
    t.true(service.expose.includes(String(port)), `${role} exposes ${port} to the other containers`);
    t.is(loadConfig(environmentOf(role)).METRICS_HOST, "0.0.0.0", `${role} binds metrics where Prometheus reaches them`);
    for (const published of service.ports ?? []) t.false(String(published).includes(String(port)), `${role} does not publish ${port}`);
  }
  t.not(loadConfig(environmentOf("gateway")).METRICS_PORT, loadConfig(environmentOf("gateway")).PORT, "not the gateway's public port");
});

test("every role has one internal token: a development default the host's INTERNAL_TOKEN replaces", (t) => {
  const tokens = new Set(ROLES.map((role) => loadConfig(environmentOf(role)).INTERNAL_TOKEN));
  t.is(tokens.size, 1);
  t.truthy([...tokens][0]);
  const own = "o".repeat(43);
  for (const role of ROLES) t.is(loadConfig(environmentOf(role, { INTERNAL_TOKEN: own })).INTERNAL_TOKEN, own);
});
