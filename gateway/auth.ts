import { createHash } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";
import { planName, type PlanName } from "../common/plans.js";
import type { ServiceClients } from "./clients.js";

export interface Principal {
  keyId: string;
  storeId: string;
  plan: PlanName;
}

/**
 * Resolves keys through the catalog service, remembering each answer for `ttlMs` so
 * most requests skip the hop. Only successes are remembered: a new key works at once,
 * and a revoked key or a changed plan is seen within `ttlMs` (the contract allows 5 s).
 */
export function createAuthenticator(clients: Pick<ServiceClients, "store">, ttlMs = 2_000, maxEntries = 10_000) {
  const cache = new Map<string, { principal: Principal; expires: number }>();
  return {
    /** The key's principal, or undefined when the key is unknown or revoked. */
    async authenticate(secret: string): Promise<Principal | undefined> {
      // Cache by digest, so live keys do not sit in the heap as plain text.
      const digest = createHash("sha256").update(secret).digest("base64");
      const now = Date.now();
      const hit = cache.get(digest);
      if (hit && hit.expires > now) return hit.principal;
      cache.delete(digest);
      try {
        const answer = await clients.store.authenticateApiKey({ secret });
        const principal = { keyId: answer.keyId, storeId: answer.storeId, plan: planName(answer.plan) ?? "starter" };
        if (cache.size >= maxEntries) cache.delete(cache.keys().next().value!);
        cache.set(digest, { principal, expires: now + ttlMs });
        return principal;
      } catch (error) {
        if (error instanceof ConnectError && error.code === Code.Unauthenticated) return undefined;
        throw error;
      }
    },
  };
}

export type Authenticator = ReturnType<typeof createAuthenticator>;
