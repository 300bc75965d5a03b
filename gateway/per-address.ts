// Limits per client address (docs/security.md#limits-per-client-address): failed API-key
// authentication, dashboard sign-in, password-reset requests, and whatever else a
// client may repeat only so often. Every one of them counts an address here, the same
// way, and takes its token before the work it guards: a limit that is checked first
// and charged after the work lets every request already in flight past the check.
import ipaddr from "ipaddr.js";
import type { RateDecision, RateLimiter, RefundableRateLimiter } from "./rate-limit.js";

/**
 * The part of an address one client is taken to hold: an IPv4 address, or the /64 of an
 * IPv6 one (a network hands each customer at least a /64, so one client can pick any of
 * its 2^64 addresses). An IPv4-mapped IPv6 address, as a dual-stack socket reports an
 * IPv4 peer, is that IPv4 address. Anything else (no peer: the socket already closed)
 * stays as it is.
 */
export function addressBucket(address: string): string {
  if (ipaddr.IPv4.isValidFourPartDecimal(address)) return address;
  if (!ipaddr.IPv6.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === "ipv4") return parsed.toString();
  const network = [...(parsed as ipaddr.IPv6).parts.slice(0, 4), 0, 0, 0, 0];
  return `${new ipaddr.IPv6(network).toString()}/64`;
}

const bucketOf = (name: string, address: string) => `${name}:${addressBucket(address)}`;

/** A limit whose every request costs a token, taken before the request's work. */
export interface PerAddressLimit {
  /** Takes one token of the address's bucket; refused when there is none left. */
  take(address: string): Promise<RateDecision>;
}

export function perAddress(limiter: RateLimiter, name: string, perMinute: number): PerAddressLimit {
  return { take: (address) => limiter.take(bucketOf(name, address), perMinute) };
}

/** An attempt that holds a token of its address's bucket until its outcome is known. */
export interface Attempt {
  /** The attempt failed in the way the limit counts: its token stays spent. */
  failed(): void;
  /** Gives the token back unless failed() was called. Call once, when the outcome is known. */
  end(): Promise<void>;
}

/** A limit on failed attempts (wrong keys, wrong passwords) per address. */
export interface PerAddressFailureLimit {
  /**
   * Takes a token before the attempt starts, so no more attempts are ever under way at
   * once than the bucket holds tokens. Refused, the attempt must not be made; allowed,
   * it is settled with the Attempt: a success hands its token back, so successes never
   * use up the budget. When the tokens are all held by attempts still under way, this
   * waits for one of them to settle rather than refusing: a burst of good keys from one
   * client is let through as each settles, and only failures ever lead to a refusal.
   */
  begin(address: string): Promise<({ allowed: true } & Attempt) | ({ allowed: false } & RateDecision)>;
}

export function perAddressFailures(limiter: RefundableRateLimiter, name: string, perMinute: number): PerAddressFailureLimit {
  // Attempts of this process under way, by bucket: how many, how many have settled, and
  // who waits for the next to settle. An entry lives only while any are under way.
  const underWay = new Map<string, { count: number; settled: number; waiters: (() => void)[] }>();

  function start(bucket: string): Attempt {
    const entry = underWay.get(bucket) ?? { count: 0, settled: 0, waiters: [] };
    entry.count += 1;
    underWay.set(bucket, entry);
    let failed = false;
    let ended = false;
    return {
      failed: () => {
        failed = true;
      },
      async end() {
        if (ended) return;
        ended = true;
        try {
          if (!failed) await limiter.giveBack(bucket, perMinute);
        } finally {
          entry.count -= 1;
          entry.settled += 1;
          if (entry.count === 0) underWay.delete(bucket);
          for (const wake of entry.waiters.splice(0)) wake();
        }
      },
    };
  }

  return {
    async begin(address) {
      const bucket = bucketOf(name, address);
      for (;;) {
        const before = underWay.get(bucket);
        const settledBefore = before?.settled;
        const decision = await limiter.take(bucket, perMinute);
        if (decision.allowed) return { allowed: true, ...start(bucket) };
        const now = underWay.get(bucket);
        // One settled while this take was on its way: its token may be back already.
        if (before && (now !== before || now.settled !== settledBefore)) continue;
        if (!now) return { ...decision, allowed: false };
        await new Promise<void>((resolve) => now.waiters.push(resolve));
      }
    },
  };
}
