import { createHash } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";
import { planName, type PlanName } from "../common/plans.js";
import { isScope, parseScopes, type Scope } from "../common/scopes.js";
import type { ServiceClients } from "./clients.js";

export interface Principal {
  keyId: string;
  storeId: string;
  plan: PlanName;
  scopes: Scope[];
  /** False for a test key (docs/keys.md#test-mode): every call then reads and makes test data only. */
  livemode: boolean;
}

/**
 * Resolves keys through the catalog service, remembering each answer for `ttlMs` so
 * most requests skip the hop. Only successes are remembered: a new key works at once,
 * and a revoked key or a changed plan is seen within `ttlMs` (docs/api.md#authentication allows 5 s).
 *
 * A busy key must not stampede the catalog when its answer expires: requests that miss
 * together share one lookup, and a key used in the last `refreshAheadMs` of its answer
 * is looked up again in the background while the remembered answer still serves. On
 * a starved CPU, fifty lookups at once each risked their deadline, and every request
 * waiting on one that missed it answered 503.
 */
export function createAuthenticator(
  clients: Pick<ServiceClients, "store">,
  ttlMs = 2_000,
  maxEntries = 10_000,
  options: { refreshAheadMs?: number; now?: () => number } = {},
) {
  const refreshAheadMs = Math.min(options.refreshAheadMs ?? 500, ttlMs / 2);
  const now = options.now ?? Date.now;
  const cache = new Map<string, { principal: Principal; expires: number }>();
  const lookups = new Map<string, Promise<Principal | undefined>>();

  function lookUp(secret: string, digest: string): Promise<Principal | undefined> {
    // The answer is at least as old as the question.
    const asked = now();
    const lookup = (async () => {
      try {
        const answer = await clients.store.authenticateApiKey({ secret });
        // A scope this gateway does not know grants nothing here.
        const scopes = parseScopes(answer.scopes.filter(isScope)) ?? [];
        // The mode is the catalog's, kept with the key (docs/keys.md#test-mode), not read from its prefix here.
        const principal = { keyId: answer.keyId, storeId: answer.storeId, plan: planName(answer.plan) ?? "starter", scopes, livemode: answer.livemode };
        cache.delete(digest);
        if (cache.size >= maxEntries) cache.delete(cache.keys().next().value!);
        cache.set(digest, { principal, expires: asked + ttlMs });
        return principal;
      } catch (error) {
        if (error instanceof ConnectError && error.code === Code.Unauthenticated) {
          cache.delete(digest);
          return undefined;
        }
        throw error;
      }
    })().finally(() => lookups.delete(digest));
    lookups.set(digest, lookup);
    return lookup;
  }

  return {
    /** The key's principal, or undefined when the key is unknown or revoked. */
    async authenticate(secret: string): Promise<Principal | undefined> {
      // Cache by digest, so live keys do not sit in the heap as plain text.
      const digest = createHash("sha256").update(secret).digest("base64");
      const at = now();
      const hit = cache.get(digest);
      if (hit && hit.expires > at) {
        if (hit.expires - at <= refreshAheadMs && !lookups.has(digest)) {
          // A failed refresh leaves the answer to expire; the next miss asks again.
          lookUp(secret, digest).catch(() => {});
        }
        return hit.principal;
      }
      if (hit) cache.delete(digest);
      return lookups.get(digest) ?? lookUp(secret, digest);
    },
  };
}

export type Authenticator = ReturnType<typeof createAuthenticator>;
