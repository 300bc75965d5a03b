import { createHash } from "node:crypto";
import { invalidField } from "./errors.js";
import type { GatewayContext } from "./context.js";
import { MAX_IDEMPOTENCY_KEY_LENGTH } from "../common/order-limits.js";
import { textProblem } from "../common/text.js";

// The client's half of idempotency (docs/api.md#idempotency, docs/refunds.md): the `Idempotency-Key` header and
// a hash of what the request means. The order service keeps the keys and decides
// replay or CONFLICT; every POST that takes a key reads it here, the same way.

/** JSON with keys sorted, so two bodies that mean the same hash the same. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value);
}

/** The request hash the order service compares a reused key against. */
export function requestHash(value: unknown): string {
  return createHash("sha256").update(canonical(value)).digest("hex");
}

/** The request's `Idempotency-Key` (1–255 characters of valid text), or undefined without one. */
export function idempotencyKeyOf(ctx: GatewayContext): string | undefined {
  if (ctx.headers["idempotency-key"] === undefined) return undefined;
  const key = ctx.get("idempotency-key");
  if (key.length < 1 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH) throw invalidField("Idempotency-Key", `must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`);
  const problem = textProblem(key);
  if (problem) throw invalidField("Idempotency-Key", problem);
  return key;
}
