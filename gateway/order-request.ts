import { z } from "zod";
import { buyerShape, metadataShape } from "../common/api-shapes.js";
import { metadataPatch } from "../common/order-metadata.js";
import { SIMULATED_OUTCOMES } from "../common/test-orders.js";
import {
  MAX_MUTATION_AMOUNT,
  MAX_MUTATION_DESCRIPTION_LENGTH,
  MAX_MUTATION_ID_LENGTH,
  MAX_MUTATIONS_PER_CALL,
  MUTATION_TYPES,
} from "../common/bank-mutations.js";
import {
  MAX_EXTERNAL_ID_LENGTH,
  MAX_ITEM_QUANTITY,
  MAX_ITEMS_PER_ORDER,
  MAX_METADATA_KEY_LENGTH,
  MAX_METADATA_KEYS,
  MAX_METADATA_VALUE_LENGTH,
  MAX_REDIRECT_URL_LENGTH,
  MAX_REFUND_REASON_LENGTH,
  MAX_REFUND_REFERENCE_LENGTH,
} from "../common/order-limits.js";
import { inBodyOrder, invalidFields, invalidRequest, type FieldError } from "./errors.js";

// The JSON shapes of POST /v1/orders, POST /v1/orders/{id}/refunds and POST
// /v1/bank-mutations: types and known fields only. The rules that give
// values meaning (lengths, formats, ranges, catalog lookups) live in the order
// service, so a gRPC caller meets exactly the same ones.
//
// These schemas are also the OpenAPI document's request bodies (routes/*.openapi.ts).
// Their `.meta()` adds no check here: it states the order service's rule for each value
// in the document, from the constants the service checks with (common/order-limits.ts,
// common/bank-mutations.ts), where the zod check only bounds a shape.

const uuidFormat = { format: "uuid" } as const;

const item = z
  .object({
    product_id: z.string().optional().meta(uuidFormat),
    bundle_id: z.string().optional().meta(uuidFormat),
    quantity: z.number().int().min(-2_147_483_648).max(2_147_483_647).meta({ minimum: 1, maximum: MAX_ITEM_QUANTITY }),
  })
  .strict()
  .meta({ oneOf: [{ required: ["product_id"] }, { required: ["bundle_id"] }] });

const redirectUrl = z.string().optional().meta({ format: "uri", pattern: "^https?://", maxLength: MAX_REDIRECT_URL_LENGTH });
const redirect = z
  .object({
    success_url: redirectUrl,
    return_url: redirectUrl,
    error_url: redirectUrl,
  })
  .strict();

export const createOrderBody = z
  .object({
    items: z
      .array(item)
      .max(1000)
      .meta({ minItems: 1, maxItems: MAX_ITEMS_PER_ORDER, description: "Exactly one id per item; no id twice." }),
    buyer: buyerShape,
    payment_method: z
      .string()
      .optional()
      .meta({ description: "A code from GET /v1/payment-methods; may be omitted only when the total is 0." }),
    redirect: redirect.optional(),
    external_id: z.string().optional().meta({ minLength: 1, maxLength: MAX_EXTERNAL_ID_LENGTH }),
    metadata: metadataShape.optional(),
  })
  .strict()
  .meta({ id: "CreateOrderRequest" });

export type CreateOrderBody = z.infer<typeof createOrderBody>;

/** An order's (or a payment link's) items as CreateOrder takes them: neither or both ids is no ref, which the service names. */
function itemInputs(items: CreateOrderBody["items"]) {
  return items.map((item) => ({
    ref:
      item.product_id !== undefined && item.bundle_id === undefined
        ? { case: "productId" as const, value: item.product_id }
        : item.bundle_id !== undefined && item.product_id === undefined
          ? { case: "bundleId" as const, value: item.bundle_id }
          : { case: undefined },
    quantity: item.quantity,
  }));
}

/** What a create-order body asks of the order service's CreateOrder. */
export function createOrderFields(body: CreateOrderBody) {
  return {
    items: itemInputs(body.items),
    buyer: body.buyer,
    paymentMethod: body.payment_method ?? "",
    redirect: body.redirect
      ? {
          successUrl: body.redirect.success_url ?? "",
          returnUrl: body.redirect.return_url ?? "",
          errorUrl: body.redirect.error_url ?? "",
        }
      : undefined,
    externalId: body.external_id,
    metadata: body.metadata ?? {},
  };
}

/** PATCH /v1/orders/{id} (docs/orders.md#metadata): the keys to set, a null value removing its key. */
export const updateOrderBody = z
  .object({
    metadata: z
      .record(z.string(), z.string().nullable())
      .meta({
        maxProperties: MAX_METADATA_KEYS,
        propertyNames: { minLength: 1, maxLength: MAX_METADATA_KEY_LENGTH },
        additionalProperties: { type: ["string", "null"], maxLength: MAX_METADATA_VALUE_LENGTH },
        description: `Keys to set (a string of at most ${MAX_METADATA_VALUE_LENGTH} characters) or remove (null); keys not named keep their values. The order may hold at most ${MAX_METADATA_KEYS} keys afterwards.`,
      }),
  })
  .strict()
  .meta({ id: "UpdateOrderRequest" });

export type UpdateOrderBody = z.infer<typeof updateOrderBody>;

/** What an update body asks of the order service's UpdateOrderMetadata. */
export function updateOrderFields(body: UpdateOrderBody) {
  return metadataPatch(body.metadata);
}

/** POST /v1/orders/{id}/cancel takes no body; an empty object is let pass. */
export const cancelOrderBody = z.object({}).strict();

/** "items[0].quantity" from zod's ["items", 0, "quantity"]. */
function fieldPath(path: PropertyKey[]): string {
  return path.reduce<string>((out, part) => (typeof part === "number" ? `${out}[${part}]` : out ? `${out}.${String(part)}` : String(part)), "");
}

export function parseCreateOrderBody(body: unknown): CreateOrderBody {
  return parseBody(createOrderBody, body);
}

/**
 * A body of the given shape, or INVALID_REQUEST listing every wrong field in the order
 * the body has them (the message names the first).
 */
export function parseBody<T extends z.ZodTypeAny>(schema: T, body: unknown): z.infer<T> {
  if (body === undefined) throw invalidRequest("request body is required", [{ field: "body", message: "is required" }]);
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const found = inBodyOrder(result.error.issues.flatMap(fieldErrorsOf), body, (e) => e.steps);
  throw invalidFields(found.map(({ field, message }) => ({ field, message })));
}

/** One zod issue as the API's field errors, each with its path for ordering. */
function fieldErrorsOf(issue: z.core.$ZodIssue): (FieldError & { steps: PropertyKey[] })[] {
  if (issue.code === "unrecognized_keys") {
    // zod gives one issue per object; each unknown field is a field error of its own.
    return issue.keys.map((key) => {
      const steps = [...issue.path, key];
      return { field: fieldPath(steps), message: "is not a known field", steps };
    });
  }
  const field = fieldPath(issue.path) || "body";
  if (issue.code === "invalid_type") {
    const present = issue.message.includes("received undefined") ? "is required" : `must be ${issue.expected === "int" ? "an integer" : `a${/^[aeiou]/.test(issue.expected) ? "n" : ""} ${issue.expected}`}`;
    return [{ field, message: present, steps: issue.path }];
  }
  return [{ field, message: issue.message, steps: issue.path }];
}

const bankMutation = z
  .object({
    id: z
      .string()
      .meta({ minLength: 1, maxLength: MAX_MUTATION_ID_LENGTH, description: "The bank's or aggregator's mutation id, unique per store." }),
    amount: z
      .number()
      .int()
      .min(-Number.MAX_SAFE_INTEGER)
      .max(Number.MAX_SAFE_INTEGER)
      .meta({ minimum: 1, maximum: MAX_MUTATION_AMOUNT, description: "IDR, a positive integer." }),
    type: z.string().meta({ enum: MUTATION_TYPES }),
    occurred_at: z.string().meta({ format: "date-time", description: "ISO 8601 with an offset." }),
    description: z.string().optional().meta({ maxLength: MAX_MUTATION_DESCRIPTION_LENGTH }),
  })
  .strict();

// How many mutations a call may carry is the order service's rule (1–500); the cap here
// only bounds the work of checking a shape.
export const bankMutationsBody = z
  .object({ mutations: z.array(bankMutation).max(10_000).meta({ minItems: 1, maxItems: MAX_MUTATIONS_PER_CALL }) })
  .strict()
  .meta({ id: "BankMutationsRequest" });

/** The mutations of a body as the order service's ReconcileMutations takes them. */
export function mutationFields(body: z.infer<typeof bankMutationsBody>) {
  return body.mutations.map((m) => ({
    id: m.id,
    amount: BigInt(m.amount),
    type: m.type,
    occurredAt: m.occurred_at,
    description: m.description ?? "",
  }));
}

// How much may be refunded (1 … what is left), and the lengths of `reason` (1–200) and
// `reference` (≤ 100), are the order service's rules; zod's int() only keeps an amount
// within the safe integers, which an int64 and a JSON number both hold exactly.
export const refundOrderBody = z
  .object({
    amount: z
      .number()
      .int({ message: "is out of range" })
      .optional()
      .meta({ minimum: 1, description: "IDR. At most what is left; omitted: everything that is left." }),
    reason: z.string().meta({ minLength: 1, maxLength: MAX_REFUND_REASON_LENGTH }),
    reference: z
      .string()
      .optional()
      .meta({ maxLength: MAX_REFUND_REFERENCE_LENGTH, description: "Your own reference, e.g. the bank transfer that sent a manual refund back." }),
  })
  .strict()
  .meta({ id: "RefundOrderRequest" });

export type RefundOrderBody = z.infer<typeof refundOrderBody>;

/** POST /v1/payment-links (docs/api.md#payment-links): the order service checks the values. */
export const createPaymentLinkBody = z
  .object({
    items: z.array(item).max(1000).meta({ minItems: 1, maxItems: MAX_ITEMS_PER_ORDER, description: "As an order's items." }),
    payment_methods: z.array(z.string()).max(100).optional().meta({ description: "Codes from GET /v1/payment-methods; omitted: every method the store offers." }),
    usage_limit: z.number().int().min(-2_147_483_648).max(2_147_483_647).nullable().optional().meta({ minimum: 1, description: "How many paid orders the link takes; omitted or null: no limit." }),
    expires_at: z.string().nullable().optional().meta({ format: "date-time", description: "RFC 3339, in the future; omitted or null: never." }),
  })
  .strict()
  .meta({ id: "CreatePaymentLinkRequest" });

/** What a create-link body asks of the order service's CreatePaymentLink. */
export function createPaymentLinkFields(body: z.infer<typeof createPaymentLinkBody>) {
  return {
    items: itemInputs(body.items),
    paymentMethods: body.payment_methods ?? [],
    usageLimit: body.usage_limit ?? undefined,
    expiresAt: body.expires_at ?? undefined,
  };
}

/** POST /v1/test/orders/{order_id}/simulate (docs/payments.md#test-orders). */
export const simulateTestOrderBody = z
  .object({
    outcome: z.enum(SIMULATED_OUTCOMES).meta({ description: "What happens to the pending test order, as if the gateway had said so." }),
  })
  .strict()
  .meta({ id: "SimulateTestOrderRequest" });

/** What a refund body asks of the order service's RefundOrder. */
export function refundOrderFields(body: RefundOrderBody) {
  return { amount: body.amount === undefined ? undefined : BigInt(body.amount), reason: body.reason, reference: body.reference };
}
