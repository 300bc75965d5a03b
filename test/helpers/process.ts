import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { TEST_INTERNAL_TOKEN } from "./internal-token.js";
export { freePort } from "../../platform/net.js";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

export interface Spawned {
  child: ChildProcess;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** Resolves with the first match of `pattern` in the output. */
  waitFor(pattern: RegExp, ms?: number): Promise<RegExpMatchArray>;
  /** Sends `signal` and resolves with the exit code (null when killed by a signal). */
  stop(signal?: NodeJS.Signals, ms?: number): Promise<number | null>;
  exited: Promise<number | null>;
}

/** Runs a command from the repository root (or `cwd`) as a real child process. */
export function spawnProcess(command: string, args: string[], env: Record<string, string | undefined> = {}, cwd = ROOT): Spawned {
  const child = spawn(command, args, {
    cwd,
    env: { ...process.env, LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "info", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let text = "";
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    text += chunk.toString("utf8");
    for (const listener of listeners) listener();
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  // "exit" can come before the child's last output has been read (the probe tests saw an
  // empty output); "close" comes once its pipes are drained. A grandchild still holding
  // the pipes would keep "close" away, so that wait is bounded.
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => {
      const late = setTimeout(() => resolve(code), 1_000);
      child.once("close", () => {
        clearTimeout(late);
        resolve(code);
      });
    }),
  );
  return {
    child,
    exited,
    output: () => text,
    waitFor(pattern, ms = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = text.match(pattern);
          if (match) {
            cleanup();
            resolve(match);
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`timed out waiting for ${pattern}; output:\n${text.slice(-3000)}`));
        }, ms);
        const onExit = () => {
          setTimeout(() => {
            if (!listeners.has(check)) return;
            cleanup();
            reject(new Error(`process exited before ${pattern}; output:\n${text.slice(-3000)}`));
          }, 50);
        };
        const cleanup = () => {
          clearTimeout(timer);
          listeners.delete(check);
          child.off("exit", onExit);
        };
        listeners.add(check);
        child.once("exit", onExit);
        check();
      });
    },
    async stop(signal = "SIGTERM", ms = 15_000) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      const timer = setTimeout(() => child.kill("SIGKILL"), ms);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/**
 * A TypeScript entry point run as its own Node process, as `npm run start:*` would. Its
 * metrics listener takes any free port unless METRICS_PORT is given: the default (its
 * own port + 1000) could be a port another test process was just handed. Its internal
 * token is the tests' (internal-token.ts) unless `env` gives another, or none (undefined).
 */
export function spawnEntry(entry: string, env: Record<string, string | undefined> = {}, args: string[] = []): Spawned {
  return spawnProcess(process.execPath, ["--import", "tsx", entry, ...args], { METRICS_PORT: "0", INTERNAL_TOKEN: TEST_INTERNAL_TOKEN, ...env });
}
