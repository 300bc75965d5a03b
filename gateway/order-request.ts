import { z } from "zod";
import { invalidRequest, type FieldError } from "./errors.js";

// The JSON shapes of POST /v1/orders, POST /v1/orders/{id}/refunds and POST
// /v1/bank-mutations: types and known fields only. The rules that give
// values meaning (lengths, formats, ranges, catalog lookups) live in the order
// service, so a gRPC caller meets exactly the same ones.

const item = z
  .object({
    product_id: z.string().optional(),
    bundle_id: z.string().optional(),
    quantity: z.number().int().min(-2_147_483_648).max(2_147_483_647),
  })
  .strict();

const redirect = z
  .object({
    success_url: z.string().optional(),
    return_url: z.string().optional(),
    error_url: z.string().optional(),
  })
  .strict();

export const createOrderBody = z
  .object({
    items: z.array(item).max(1000),
    buyer: z.object({ name: z.string(), email: z.string(), phone: z.string() }).strict(),
    payment_method: z.string().optional(),
    redirect: redirect.optional(),
    external_id: z.string().optional(),
  })
  .strict();

export type CreateOrderBody = z.infer<typeof createOrderBody>;

/** "items[0].quantity" from zod's ["items", 0, "quantity"]. */
function fieldPath(path: PropertyKey[]): string {
  return path.reduce<string>((out, part) => (typeof part === "number" ? `${out}[${part}]` : out ? `${out}.${String(part)}` : String(part)), "");
}

export function parseCreateOrderBody(body: unknown): CreateOrderBody {
  return parseBody(createOrderBody, body);
}

/** A body of the given shape, or INVALID_REQUEST naming the first wrong field. */
export function parseBody<T extends z.ZodTypeAny>(schema: T, body: unknown): z.infer<T> {
  if (body === undefined) throw invalidRequest("request body is required", [{ field: "body", message: "is required" }]);
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const details: FieldError[] = result.error.issues.map((issue) => {
    if (issue.code === "unrecognized_keys") {
      const field = fieldPath([...issue.path, issue.keys[0]!]);
      return { field, message: "is not a known field" };
    }
    const field = fieldPath(issue.path) || "body";
    if (issue.code === "invalid_type") {
      const present = issue.message.includes("received undefined") ? "is required" : `must be ${issue.expected === "int" ? "an integer" : `a${/^[aeiou]/.test(issue.expected) ? "n" : ""} ${issue.expected}`}`;
      return { field, message: present };
    }
    return { field, message: issue.message };
  });
  throw invalidRequest(`${details[0]!.field}: ${details[0]!.message}`, details.slice(0, 1));
}

const bankMutation = z
  .object({
    id: z.string(),
    amount: z.number().int().min(-Number.MAX_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER),
    type: z.string(),
    occurred_at: z.string(),
    description: z.string().optional(),
  })
  .strict();

// How many mutations a call may carry is the order service's rule (1–500); the cap here
// only bounds the work of checking a shape.
export const bankMutationsBody = z.object({ mutations: z.array(bankMutation).max(10_000) }).strict();

// How much may be refunded (1 … what is left), and the lengths of `reason` (1–200) and
// `reference` (≤ 100), are the order service's rules; zod's int() only keeps an amount
// within the safe integers, which an int64 and a JSON number both hold exactly.
export const refundOrderBody = z
  .object({
    amount: z.number().int({ message: "is out of range" }).optional(),
    reason: z.string(),
    reference: z.string().optional(),
  })
  .strict();

export type RefundOrderBody = z.infer<typeof refundOrderBody>;
