// The Idempotency-Key of POST /v1/orders (docs/api.md#idempotency): the same key with the same
// body within 24 h answers with the first response again (replayed); another body is
// a CONFLICT; concurrent duplicates make one order. The decisions are pure functions;
// `createIdempotency` carries them out on idempotency_keys (db/idempotency.ts) around an order's creation.
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { CreateOrderResponseSchema, type CreateOrderResponse } from "../../gen/order/v1/order_pb.js";
import type { Db, Sql } from "../../platform/db.js";
import { attachIdempotencyOrder, completeIdempotencyKey, findIdempotencyRecord, type IdempotencyRecord, purgeIdempotencyKeys, releaseIdempotencyKey, type KeySpace, type TakeoverRule, tryClaimIdempotencyKey } from "./db/idempotency.js";

/**
 * A record older than 24 h is taken over as if it were not there, and so is one whose
 * request died (no order, no response) more than 30 s ago.
 */
export const TAKEOVER: TakeoverRule = { keepSeconds: 24 * 60 * 60, staleSeconds: 30 };

export type IdempotencyClaim =
  | { kind: "claimed" }
  | { kind: "mismatch" }
  | { kind: "in_flight"; orderId: string | null; stale: boolean }
  | { kind: "done"; response: Uint8Array };

export type ClaimDecision =
  /** This request holds the key: make the order. */
  | { kind: "proceed" }
  /** Answer with the stored response. */
  | { kind: "replay"; response: Uint8Array }
  /** The first request made its order and died before answering: answer for it. */
  | { kind: "resume"; orderId: string }
  /** ALREADY_EXISTS (the gateway's CONFLICT) with this message. */
  | { kind: "refuse"; message: string };

/** What an existing record (one this request could not take over) means for a request with `requestHash`. */
export function classifyRecord(record: IdempotencyRecord, requestHash: string): IdempotencyClaim {
  if (record.request_hash !== requestHash) return { kind: "mismatch" };
  if (record.response === null) return { kind: "in_flight", orderId: record.order_id, stale: record.stale };
  return { kind: "done", response: record.response };
}

export function decideClaim(claim: IdempotencyClaim): ClaimDecision {
  switch (claim.kind) {
    case "claimed":
      return { kind: "proceed" };
    case "mismatch":
      return { kind: "refuse", message: "Idempotency-Key was already used with a different request" };
    case "done":
      return { kind: "replay", response: claim.response };
    case "in_flight":
      return claim.stale && claim.orderId
        ? { kind: "resume", orderId: claim.orderId }
        : { kind: "refuse", message: "a request with this Idempotency-Key is still in flight" };
  }
}

/** The bytes a completed record keeps. */
export function recordOf(response: CreateOrderResponse): Uint8Array {
  return toBinary(CreateOrderResponseSchema, response);
}

/** A stored response, answered again. */
export function replayOf(stored: Uint8Array): CreateOrderResponse {
  return { ...fromBinary(CreateOrderResponseSchema, stored), replayed: true };
}

/** Refusal when another request with the same key attached its order first. */
export const KEY_TAKEN_MESSAGE = "another request with this Idempotency-Key made the order";

export interface IdempotentSteps<T> {
  /** Writes the order (calling `attach` in its transaction). Throws only when nothing was written. */
  create(): Promise<T>;
  /** The response for what `create` made. */
  respond(created: T): Promise<CreateOrderResponse>;
  /** The response for an order an earlier request with the key made. */
  resume(orderId: string): Promise<CreateOrderResponse>;
}

export function createIdempotency(deps: { sql: Sql; rule?: TakeoverRule }) {
  const { sql } = deps;
  const rule = deps.rule ?? TAKEOVER;

  /** Claims `key` for this request, or says what already holds it. */
  async function claim(space: KeySpace, key: string, requestHash: string): Promise<IdempotencyClaim> {
    for (;;) {
      if (await tryClaimIdempotencyKey(sql, space, key, requestHash, rule)) return { kind: "claimed" };
      const record = await findIdempotencyRecord(sql, space, key, rule.staleSeconds);
      if (record) return classifyRecord(record, requestHash);
      // Released or purged between the two statements: claim again.
    }
  }

  /**
   * Creates at most one order per key: claims it, replays or refuses as decided, and
   * otherwise creates, answers and stores the answer. Without a key, just creates. A key
   * is a key of its mode (`livemode`, live unless said): a test request never replays a
   * live one's answer (docs/keys.md#test-mode).
   */
  async function run<T>(storeId: string, key: string | undefined, requestHash: string, steps: IdempotentSteps<T>, livemode = true): Promise<CreateOrderResponse> {
    if (key === undefined) return steps.respond(await steps.create());
    const space = { storeId, livemode };
    const decision = decideClaim(await claim(space, key, requestHash));
    switch (decision.kind) {
      case "refuse":
        throw new ConnectError(decision.message, Code.AlreadyExists);
      case "replay":
        return replayOf(decision.response);
      case "resume": {
        const response = await steps.resume(decision.orderId);
        await completeIdempotencyKey(sql, space, key, decision.orderId, recordOf(response));
        return { ...response, replayed: true };
      }
      case "proceed":
        break;
    }
    let created: T;
    try {
      created = await steps.create();
    } catch (error) {
      // Nothing was written: free the key so a corrected retry can use it. (The statement
      // only frees a key that holds no order, or a retry would make a second order.)
      await releaseIdempotencyKey(sql, space, key);
      throw error;
    }
    const response = await steps.respond(created);
    await completeIdempotencyKey(sql, space, key, response.detail!.order!.id, recordOf(response));
    return response;
  }

  /**
   * Ties the key to its order in the transaction that creates the order. Exactly one
   * order per key: if another request took the key over meanwhile (this one stalled
   * past the takeover time) and attached its order, this one must not commit a second.
   */
  async function attach(tx: Db, storeId: string, key: string, orderId: string, livemode = true): Promise<void> {
    if (!(await attachIdempotencyOrder(tx, { storeId, livemode }, key, orderId))) {
      throw new ConnectError(KEY_TAKEN_MESSAGE, Code.AlreadyExists);
    }
  }

  /** Drops records past their life (the expiry sweeper calls this hourly). */
  async function purgeExpired(): Promise<void> {
    await purgeIdempotencyKeys(sql, rule.keepSeconds);
  }

  return { run, attach, purgeExpired, claim };
}

export type Idempotency = ReturnType<typeof createIdempotency>;

