import { z } from "zod";
import { invalidRequest, type FieldError } from "./errors.js";

// The JSON shape of POST /v1/orders: types and known fields only. The rules that give
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
  if (body === undefined) throw invalidRequest("request body is required", [{ field: "body", message: "is required" }]);
  const result = createOrderBody.safeParse(body);
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
