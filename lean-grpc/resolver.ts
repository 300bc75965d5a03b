import dns from "node:dns/promises";
import net from "node:net";
import { Code, ConnectError } from "@connectrpc/connect";

/**
 * The addresses a service's base URL stands for, kept current: an IP literal as it is
 * (no lookup, no timer), a host name every address the resolver gives, looked up on
 * first need and again every `resolveEveryMs`. What to do with the addresses (which
 * takes the next call, what a failure means) is the balancer's (balancer.ts).
 */

/** One address of a service. */
export interface ServiceAddress {
  /** `10.0.0.5:50052` or `[fd00::5]:50052`: its name in the rotation and in logs. */
  key: string;
  /** `http://order:50052`: the `:authority` its requests carry, whatever address they go to. */
  authority: string;
  host: string;
  port: number;
}

/** The structured logger told about address changes and failed lookups (a pino logger fits). */
export interface BalancerLog {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

export interface ResolverOptions {
  /** One base URL (`http://order:50052`), or several separated by commas. */
  baseUrl: string;
  /** A host name's addresses (default: the system resolver's, every A and AAAA record). */
  lookup?: (host: string) => Promise<string[]>;
  /** How often host names are looked up again (default RESOLVE_EVERY_MS). */
  resolveEveryMs?: number;
  now?: () => number;
  log?: BalancerLog;
  /** Every address the base URL stands for now, after each lookup that changed nothing or something. */
  onAddresses(addresses: ServiceAddress[]): void;
}

/**
 * Host names are looked up again this often. Compose and Kubernetes headless services
 * add and drop an instance's A record when it starts and stops; 5 s bounds how long a
 * new instance waits for its share and how long a gone one's sessions linger, while
 * one lookup per channel every 5 s costs nothing. (A stopped instance leaves the
 * rotation sooner than that: its GOAWAY or refused connection takes it out at once.)
 */
export const RESOLVE_EVERY_MS = 5_000;

const systemLookup = async (host: string) => (await dns.lookup(host, { all: true })).map((entry) => entry.address);

/** One entry of `baseUrl`. */
interface Target {
  authority: string;
  host: string;
  port: number;
  /** An IP address already: nothing to resolve. */
  literal: boolean;
}

/** "http://a:1, http://b:2" → its targets; throws on anything but h2c URLs. */
export function parseTargets(baseUrl: string): Target[] {
  const entries = baseUrl.split(",").map((entry) => entry.trim()).filter((entry) => entry !== "");
  if (entries.length === 0) throw new Error("no base URL given");
  return entries.map((entry) => {
    const target = new URL(entry);
    if (target.protocol !== "http:") {
      // Internal traffic is cleartext HTTP/2 here; TLS would need its own session setup.
      throw new Error(`internal gRPC speaks h2c only, not ${target.protocol}`);
    }
    const host = target.hostname.replace(/^\[|\]$/g, "");
    return { authority: `${target.protocol}//${target.host}`, host, port: Number(target.port || 80), literal: net.isIP(host) !== 0 };
  });
}

const addressKey = (host: string, port: number) => (net.isIPv6(host) ? `[${host}]:${port}` : `${host}:${port}`);

export interface Resolver {
  /** Whether there is nothing to wait for: an address is known, or there are no names to look up. */
  known(addressCount: number): boolean;
  /**
   * A call that finds no address waits for a lookup, within its deadline: the one under
   * way, or a new one unless the last found nothing under a second ago (then it goes on
   * at once: a name that does not resolve must not cost a lookup and a warning per call).
   */
  lookUpForCall(timeoutMs: number | undefined): Promise<void>;
  close(): void;
}

export function createResolver(options: ResolverOptions): Resolver {
  const targets = parseTargets(options.baseUrl);
  const lookup = options.lookup ?? systemLookup;
  const now = options.now ?? Date.now;
  const log = options.log;
  const named = targets.filter((target) => !target.literal);
  /** Each host name's addresses at its last successful lookup. */
  const found = new Map<Target, string[]>();
  let resolving: Promise<void> | undefined;
  let resolvedAt = Number.NEGATIVE_INFINITY;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  function apply() {
    const addresses = new Map<string, ServiceAddress>();
    for (const target of targets) {
      for (const host of target.literal ? [target.host] : (found.get(target) ?? [])) {
        const key = addressKey(host, target.port);
        if (!addresses.has(key)) addresses.set(key, { key, authority: target.authority, host, port: target.port });
      }
    }
    options.onAddresses([...addresses.values()]);
  }

  /** Looks every host name up again; a failed lookup keeps that name's last addresses. */
  function resolve(): Promise<void> {
    resolving ??= (async () => {
      await Promise.all(
        named.map(async (target) => {
          try {
            const addresses = await lookup(target.host);
            if (addresses.length === 0) throw new Error("no addresses");
            found.set(target, addresses);
          } catch (error) {
            log?.warn(
              { target: target.authority, err: (error as Error).message, keeping: found.get(target) ?? [] },
              "could not resolve a service's host name; calls go on to the addresses it had (keeping)",
            );
          }
        }),
      );
      if (!closed) apply();
    })().finally(() => {
      resolving = undefined;
      resolvedAt = now();
    });
    if (!timer && !closed) {
      timer = setInterval(() => void resolve(), options.resolveEveryMs ?? RESOLVE_EVERY_MS);
      timer.unref();
    }
    return resolving;
  }

  if (named.length === 0) apply();

  return {
    known: (addressCount) => addressCount > 0 || named.length === 0,
    async lookUpForCall(timeoutMs) {
      const pending = resolving ?? (now() - resolvedAt >= 1_000 ? resolve() : undefined);
      if (!pending) return;
      if (timeoutMs === undefined) return pending;
      let deadline: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          pending,
          new Promise<never>((_, reject) => {
            deadline = setTimeout(() => reject(new ConnectError("the operation timed out", Code.DeadlineExceeded)), timeoutMs);
          }),
        ]);
      } finally {
        clearTimeout(deadline);
      }
    },
    close() {
      closed = true;
      clearInterval(timer);
    },
  };
}
