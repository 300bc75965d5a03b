// The actor of the work under way in this process, for callers that act for many people
// (the gateway: each dashboard request is its member's, each /v1 call its key's). The
// RPC client's actor interceptor reads it, so no call site passes it by hand.
import { AsyncLocalStorage } from "node:async_hooks";
import type { Actor } from "../common/actor.js";

const storage = new AsyncLocalStorage<Actor>();

/** Runs `work` with `actor` as the one every RPC it makes states. */
export function actingAs<T>(actor: Actor, work: () => T): T {
  return storage.run(actor, work);
}

/** The actor of the work under way, if any. */
export function currentActor(): Actor | undefined {
  return storage.getStore();
}
