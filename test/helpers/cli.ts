// `store-admin` with the command's exit code, stdout and stderr: run in this process through
// its main (argv, environment and output streams of its own; its calls still go over
// gRPC to the stack), or as a real child process (`node cli/store-admin.js …`, what
// `npx store-admin` runs) where a test is about the program itself: its start, exit and
// streams. Booting Node and tsx for each command cost a second or more, most of a CLI
// test file's time.
import type { ExecutionContext } from "ava";
import { Writable } from "node:stream";
import { main } from "../../cli/store-admin.js";
import { TEST_INTERNAL_TOKEN } from "./internal-token.js";
import { spawnProcess, type Spawned } from "./process.js";

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs store-admin with `env()` (service addresses, say) over the tests' internal token
 * (internal-token.ts), which `env()` may replace, or drop with undefined. In this process
 * unless `spawn`: then each command is a child process.
 */
export function createCliRunner(env: () => Record<string, string | undefined>, options: { spawn?: boolean; concurrency?: number; timeoutMs?: number } = {}) {
  const running = new Set<Spawned>();
  // Each run boots Node and tsx; a few at a time keeps a small machine responsive.
  let slots = options.concurrency ?? 3;
  const waiting: (() => void)[] = [];

  async function withSlot<T>(work: () => Promise<T>): Promise<T> {
    while (slots === 0) await new Promise<void>((resolve) => waiting.push(resolve));
    slots--;
    try {
      return await work();
    } finally {
      slots++;
      waiting.shift()?.();
    }
  }

  async function spawn(args: string[], extraEnv: Record<string, string | undefined>): Promise<CliResult> {
    const child = spawnProcess(process.execPath, ["cli/store-admin.js", ...args], { INTERNAL_TOKEN: TEST_INTERNAL_TOKEN, ...env(), ...extraEnv });
    running.add(child);
    let stdout = "";
    let stderr = "";
    child.child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const timer = setTimeout(() => child.child.kill("SIGKILL"), options.timeoutMs ?? 30_000);
    // "close": the process has exited and its output is all read.
    const code = await new Promise<number | null>((resolve) => child.child.once("close", (exitCode) => resolve(exitCode)));
    clearTimeout(timer);
    running.delete(child);
    return { code, stdout, stderr };
  }

  async function inProcess(args: string[], extraEnv: Record<string, string | undefined>): Promise<CliResult> {
    // What a child would see: this process's environment with the runner's on top.
    const merged: Record<string, string | undefined> = { ...process.env, INTERNAL_TOKEN: TEST_INTERNAL_TOKEN, ...env(), ...extraEnv };
    const childEnv = Object.fromEntries(Object.entries(merged).filter(([, value]) => value !== undefined));
    let stdout = "";
    let stderr = "";
    const sink = (append: (text: string) => void) =>
      new Writable({
        write(chunk: Buffer | string, _encoding, done) {
          append(chunk.toString());
          done();
        },
      });
    const code = await main(args, { env: childEnv, stdout: sink((text) => (stdout += text)), stderr: sink((text) => (stderr += text)) });
    return { code, stdout, stderr };
  }

  const run = (args: string[], extraEnv: Record<string, string | undefined> = {}) =>
    options.spawn ? withSlot(() => spawn(args, extraEnv)) : inProcess(args, extraEnv);

  return {
    run,
    /** A command that must succeed: exit 0, nothing on stderr; its JSON. */
    async ok(this: void, t: ExecutionContext, args: string[], extraEnv?: Record<string, string | undefined>): Promise<any> {
      const result = await run(args, extraEnv);
      t.is(result.code, 0, `store-admin ${args.join(" ")} failed:\n${result.stderr}`);
      t.is(result.stderr, "");
      return JSON.parse(result.stdout);
    },
    /** A command that must fail: exit 1, nothing on stdout, stderr matching, no stack trace. */
    async fails(this: void, t: ExecutionContext, args: string[], pattern: RegExp, extraEnv?: Record<string, string | undefined>): Promise<CliResult> {
      const result = await run(args, extraEnv);
      t.is(result.code, 1, `store-admin ${args.join(" ")} should fail; stdout:\n${result.stdout}`);
      t.is(result.stdout, "");
      t.regex(result.stderr, pattern);
      t.notRegex(result.stderr, /\n\s+at /, "no stack trace");
      return result;
    },
    async stopAll() {
      await Promise.all([...running].map((child) => child.stop("SIGKILL")));
    },
  };
}
