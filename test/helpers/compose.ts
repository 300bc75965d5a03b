// docker-compose.yml and the Dockerfile read as Docker would: for the tests that hold
// them to the code (test/ops/compose.test.ts) and run the roles from them
// (test/ops/compiled.test.ts).
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { ROOT } from "./process.js";

// `merge: true` resolves the `<<: *common-env` merge keys as Docker Compose does.
export const compose = parse(readFileSync(path.join(ROOT, "docker-compose.yml"), "utf8"), { merge: true });
export const dockerfile = readFileSync(path.join(ROOT, "Dockerfile"), "utf8");
export const ROLES = ["catalog", "order", "webhook", "gateway"] as const;
export type Role = (typeof ROLES)[number];
/** Each role's TypeScript entry, whose compiled form the compose command runs. */
export const ENTRY: Record<Role, string> = {
  catalog: "services/catalog/main.ts",
  order: "services/order/main.ts",
  webhook: "services/webhook/main.ts",
  gateway: "gateway/main.ts",
};

/**
 * Compose's variable substitution (`${VAR}`, `${VAR:-default}`, `${VAR-default}`), with
 * `host` as the shell's environment: by default a host that sets nothing.
 */
export function interpolate(value: unknown, host: Record<string, string | undefined> = {}): string {
  return String(value).replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)-([^}]*))?\}/g, (_match, name: string, colon: string | undefined, fallback: string | undefined) => {
    const set = host[name];
    if (fallback === undefined) return set ?? "";
    return set === undefined || (colon === ":" && set === "") ? fallback : set;
  });
}

/** A role's environment as its container gets it. */
export function environmentOf(role: string, host: Record<string, string | undefined> = {}): Record<string, string> {
  return Object.fromEntries(Object.entries(compose.services[role].environment).map(([name, value]) => [name, interpolate(value, host)]));
}

/** The final stage of the Dockerfile: what the image is. */
export function finalStage(): string {
  return dockerfile.slice(dockerfile.lastIndexOf("\nFROM "));
}

/** What a container runs: the image's ENTRYPOINT followed by the service's command. */
export function containerCommand(role: string): string[] {
  const entrypoint = JSON.parse(/^ENTRYPOINT (\[.*\])$/m.exec(finalStage())![1]!) as string[];
  return [...entrypoint, ...compose.services[role].command];
}

/** What the image runs when no command is given: ENTRYPOINT followed by CMD. */
export function imageDefaultCommand(): string[] {
  const [entrypoint, cmd] = ["ENTRYPOINT", "CMD"].map((word) => JSON.parse(new RegExp(`^${word} (\\[.*\\])$`, "m").exec(finalStage())![1]!) as string[]);
  return [...entrypoint!, ...cmd!];
}

/** A compose healthcheck's command (`["CMD", …]` without the "CMD"). */
export function healthcheckCommand(role: string): string[] {
  const [kind, ...command] = compose.services[role].healthcheck.test as string[];
  if (kind !== "CMD") throw new Error(`${role}: healthcheck is ${kind}, not CMD`);
  return command;
}
