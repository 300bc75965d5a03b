/**
 * Which of a service's addresses takes the next call: round robin over the addresses
 * the last resolution gave, passing over those that just refused a connection or sent
 * GOAWAY until their backoff has run out. Pure: the transport tells it what happened
 * (client.ts), and the clock is injected, so the rules are tested without sockets.
 */
export interface RotationOptions {
  /** How long an address stays out after its nth failure in a row. */
  backoffMs?: (failures: number) => number;
  now?: () => number;
}

/**
 * 1 s, 2 s, 4 s, 8 s, then every 10 s. Short, because a failure is often one instance
 * restarting; capped, because a probe of a dead address costs a refused connect and the
 * call is then retried elsewhere (client.ts), so probing is cheap and finds a returning
 * instance within 10 s.
 */
export const defaultBackoffMs = (failures: number) => Math.min(1_000 * 2 ** (failures - 1), 10_000);

interface Down {
  failures: number;
  until: number;
}

export class AddressRotation {
  #addresses: string[] = [];
  #next = 0;
  readonly #down = new Map<string, Down>();
  readonly #backoffMs: (failures: number) => number;
  readonly #now: () => number;

  constructor(options: RotationOptions = {}) {
    this.#backoffMs = options.backoffMs ?? defaultBackoffMs;
    this.#now = options.now ?? Date.now;
  }

  get addresses(): readonly string[] {
    return this.#addresses;
  }

  get size(): number {
    return this.#addresses.length;
  }

  /**
   * The addresses a resolution gave. Those still present keep their place (and their
   * failures: a name that still resolves says nothing about whether its process is up);
   * new ones join at the end; gone ones are forgotten.
   */
  update(addresses: Iterable<string>): { added: string[]; removed: string[] } {
    const next = new Set(addresses);
    const removed = this.#addresses.filter((address) => !next.has(address));
    const kept = this.#addresses.filter((address) => next.has(address));
    const added = [...next].filter((address) => !kept.includes(address));
    for (const address of removed) this.#down.delete(address);
    this.#addresses = [...kept, ...added];
    if (this.#next >= this.#addresses.length) this.#next = 0;
    return { added, removed };
  }

  /** Whether `address` takes calls now: no recent failure, or its backoff has run out. */
  inRotation(address: string): boolean {
    const down = this.#down.get(address);
    return down === undefined || this.#now() >= down.until;
  }

  /**
   * The next address in turn that is in rotation, other than `avoid` (the one a call
   * just failed to reach). When every candidate is out, the next candidate anyway: a
   * call then fails only after trying, and a whole service that came back is found at
   * once rather than after its backoff. Undefined when `avoid` is the only address.
   */
  pick(avoid?: string): string | undefined {
    const addresses = this.#addresses;
    const n = addresses.length;
    if (n === 1) return addresses[0] === avoid ? undefined : addresses[0];
    let fallback: number | undefined;
    for (let i = 0; i < n; i++) {
      const index = (this.#next + i) % n;
      const address = addresses[index]!;
      if (address === avoid) continue;
      if (this.#down.size === 0 || this.inRotation(address)) {
        this.#next = (index + 1) % n;
        return address;
      }
      fallback ??= index;
    }
    if (fallback === undefined) return undefined;
    this.#next = (fallback + 1) % n;
    return addresses[fallback];
  }

  /**
   * A connection to `address` was refused or told to go away: out of rotation for a
   * backoff that grows with each failure in a row. Returns that backoff and the count.
   */
  failed(address: string): { failures: number; backoffMs: number } {
    if (!this.#addresses.includes(address)) return { failures: 0, backoffMs: 0 };
    const failures = (this.#down.get(address)?.failures ?? 0) + 1;
    const backoffMs = this.#backoffMs(failures);
    this.#down.set(address, { failures, until: this.#now() + backoffMs });
    return { failures, backoffMs };
  }

  /** A connection to `address` was made: back in rotation. True if it had been out. */
  succeeded(address: string): boolean {
    return this.#down.delete(address);
  }
}
