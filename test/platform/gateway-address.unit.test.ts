// Where a client on this machine finds the gateway (platform/gateway-address.ts,
// docs/cli.md#how-it-runs): GATEWAY_URL, else HOST and PORT when set, else what `npm start`
// kept in DATA_DIR, else the default.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import test from "ava";
import { clientGatewayUrl, GATEWAY_URL_FILE, gatewayUrl, keepGatewayUrl, keptGatewayUrl } from "../../platform/gateway-address.js";

test("the gateway's address from HOST and PORT: loopback for a wildcard host, brackets for IPv6", (t) => {
  t.is(gatewayUrl({ HOST: "0.0.0.0", PORT: 8080 }), "http://127.0.0.1:8080");
  t.is(gatewayUrl({ HOST: "::", PORT: 3000 }), "http://127.0.0.1:3000");
  t.is(gatewayUrl({ HOST: "::1", PORT: 3000 }), "http://[::1]:3000");
  t.is(gatewayUrl({ HOST: "127.0.0.2", PORT: 3001 }), "http://127.0.0.2:3001");
});

test("a client asks GATEWAY_URL, else HOST/PORT when set, else the address npm start kept, else the default", async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), "gateway-address-"));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const config = { HOST: "0.0.0.0", PORT: 8080, DATA_DIR: dir };
  t.is(clientGatewayUrl({}, config), "http://127.0.0.1:8080", "nothing kept: the default");
  await keepGatewayUrl(dir, "http://127.0.0.1:3456");
  t.is(keptGatewayUrl(dir), "http://127.0.0.1:3456");
  t.is(clientGatewayUrl({}, config), "http://127.0.0.1:3456", "npm start's, started on another PORT");
  t.is(clientGatewayUrl({ PORT: "3000" }, { ...config, PORT: 3000 }), "http://127.0.0.1:3000", "PORT given to the client wins");
  t.is(clientGatewayUrl({ GATEWAY_URL: "http://gw.internal:8080/", PORT: "3000" }, config), "http://gw.internal:8080");
  await writeFile(path.join(dir, GATEWAY_URL_FILE), "not a url\n");
  t.is(clientGatewayUrl({}, config), "http://127.0.0.1:8080", "a file holding no address is ignored");
});
