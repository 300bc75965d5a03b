// The compose stack's front door, run for real: Caddy with deploy/proxy/Caddyfile (the
// file compose mounts) in front of a gateway that trusts it (TRUST_PROXY). What only the
// pair proves: the API is served through the proxy, and a client cannot name itself
// another address through it, so the per-address limits hold behind the proxy.
import test from "ava";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { api, waitFor } from "../helpers/http.js";
import { freePort, spawnProcess } from "../helpers/process.js";
import { createStore, startStack } from "../helpers/stack.js";

test("through the bundled proxy: the API answers, and a made-up X-Forwarded-For does not escape the failed-authentication limit", async (t) => {
  // The test's own loopback address is the client; the proxy runs on loopback too.
  const stack = await startStack({ authFailuresPerMinute: 5, env: { TRUST_PROXY: "127.0.0.0/8,::1" } });
  const home = await mkdtemp(path.join(os.tmpdir(), "caddy-"));
  const proxyPort = await freePort();
  const proxy = spawnProcess("caddy", ["run", "--config", "deploy/proxy/Caddyfile", "--adapter", "caddyfile"], {
    HOME: home,
    XDG_DATA_HOME: home,
    XDG_CONFIG_HOME: home,
    PROXY_PORT: String(proxyPort),
    // The Caddyfile looks the gateways up by DNS, as it does with compose's service name.
    GATEWAY_HOST: "localhost",
    GATEWAY_PORT: new URL(stack.baseUrl).port,
  });
  t.teardown(async () => {
    await proxy.stop("SIGTERM");
    await stack.close();
    await rm(home, { recursive: true, force: true });
  });
  const front = `http://127.0.0.1:${proxyPort}`;
  await waitFor(async () => (await fetch(`${front}/healthz`).catch(() => undefined))?.status === 200, 20_000, 100).catch((error) => {
    t.log(proxy.output());
    throw error;
  });

  const { key } = await createStore(stack);
  const products = await api(front, "/v1/products", { key });
  t.is(products.status, 200, products.text);
  t.true(products.body.success);
  t.regex(products.headers.get("x-request-id") ?? "", /.+/, "the gateway's own headers pass through");

  // Each guess claims to come from another address. Caddy trusts no incoming header,
  // so the gateway sees the one client it really is, and stops it after 5.
  const claiming = (n: number, authorization: string) =>
    api(front, "/v1/products", { headers: { authorization, "x-forwarded-for": `198.51.100.${n}` } });
  for (let n = 1; n <= 5; n++) t.is((await claiming(n, "Bearer sk_live_" + "x".repeat(32))).status, 401);
  const limited = await claiming(6, `Bearer ${key}`);
  t.is(limited.status, 429, limited.text);
  t.is(limited.body.error.code, "RATE_LIMITED");
});
