// Where the gateway is reached from this machine (docs/cli.md#how-it-runs): one definition
// for the gateway's own self-calls, `npm start` and `store-admin status`. `npm start` also
// keeps the address in DATA_DIR, as it keeps the internal token, so `store-admin` finds a
// gateway started on another PORT without being told.
import { readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";

/** Where `npm start` keeps the gateway's address, under DATA_DIR. */
export const GATEWAY_URL_FILE = "gateway-url";

/** Where this process reaches a server listening on `host`: loopback for a wildcard. */
export function loopbackHost(host: string): string {
  if (host === "" || host === "0.0.0.0" || host === "::" || host === "[::]") return "127.0.0.1";
  return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
}

/** The gateway that listens on HOST and PORT, as this machine reaches it: `http://127.0.0.1:8080` by default. */
export function gatewayUrl(listen: { HOST: string; PORT: number }): string {
  return `http://${loopbackHost(listen.HOST)}:${listen.PORT}`;
}

/** `npm start`: writes where its gateway listens (the port it got, when PORT is 0). */
export async function keepGatewayUrl(dataDir: string, url: string): Promise<void> {
  await mkdir(dataDir, { recursive: true });
  await writeFile(path.resolve(dataDir, GATEWAY_URL_FILE), url + "\n");
}

/** The address `npm start` kept in DATA_DIR; undefined when there is none (or it is no http URL). */
export function keptGatewayUrl(dataDir: string): string | undefined {
  try {
    const text = readFileSync(path.resolve(dataDir, GATEWAY_URL_FILE), "utf8").trim();
    return /^https?:\/\/[^\s/]+$/.test(text) ? text : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The gateway a client on this machine (store-admin) asks: GATEWAY_URL when set; else
 * HOST and PORT when either is set, as `npm start` listens on them; else the address the
 * last `npm start` on DATA_DIR kept; else the default HOST and PORT.
 */
export function clientGatewayUrl(env: NodeJS.ProcessEnv, config: { HOST: string; PORT: number; DATA_DIR: string }): string {
  if (env.GATEWAY_URL) return env.GATEWAY_URL.replace(/\/+$/, "");
  if (env.PORT || env.HOST) return gatewayUrl(config);
  return keptGatewayUrl(config.DATA_DIR) ?? gatewayUrl(config);
}
