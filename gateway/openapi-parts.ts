// What every route's OpenAPI paths are built from (gateway/routes/*.openapi.ts), and
// the registry of named schemas that gateway/openapi.ts turns into components.schemas.
//
// Every body's schema is generated from the zod shape that defines it: request bodies
// from the schemas the gateway validates with (order-request.ts), responses and
// webhook bodies from common/api-shapes.ts, whose outputs are the renderers' types.
// What the routes' paths write by hand is the wiring: operations, parameters, headers,
// responses, descriptions and examples.

import { isDeepStrictEqual } from "node:util";
import { z } from "zod";
import { errorEnvelopeShape, successShape, uuidShape, webhookEventShape } from "../common/api-shapes.js";

export type JsonSchema = Record<string, unknown>;

/** The `paths` entries one route module documents, keyed by the OpenAPI path. */
export type PathItems = Record<string, Record<string, object>>;

/** components.schemas: every named shape (`.meta({ id })`) a schema refers to. */
const componentSchemas: Record<string, JsonSchema> = {};

/** Points zod's `#/$defs/Name` at the document's `#/components/schemas/Name`. */
function toComponentRefs<T>(node: T): T {
  if (Array.isArray(node)) return node.map(toComponentRefs) as T;
  if (!node || typeof node !== "object") return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [
      key,
      key === "$ref" && typeof value === "string" ? value.replace(/^#\/\$defs\//, "#/components/schemas/") : toComponentRefs(value),
    ]),
  ) as T;
}

// A format names its rule (uuid, date-time); the regular expression zod adds beside it is
// zod's own way of checking one, and would only bury the name in the reference.
const dropFormatPatterns: NonNullable<z.core.ToJSONSchemaParams["override"]> = ({ zodSchema, jsonSchema }) => {
  if ("format" in zodSchema._zod.def && jsonSchema.format !== undefined) delete jsonSchema.pattern;
};

/**
 * The JSON Schema (draft 2020-12, OpenAPI 3.1's dialect) of a zod shape; a named shape,
 * and every named shape inside it, is a component referred to by `$ref`. Request bodies
 * are converted as zod's input (what a client may send), the rest as its output (what
 * the API renders). A name that would stand for two different schemas throws, so a
 * shape cannot be defined twice.
 */
export function schemaOf(shape: z.ZodType, io: "input" | "output" = "output"): JsonSchema {
  const { $schema: _dialect, $defs, ...schema } = z.toJSONSchema(shape, { target: "draft-2020-12", io, override: dropFormatPatterns });
  for (const [name, definition] of Object.entries(toComponentRefs(($defs ?? {}) as Record<string, JsonSchema>))) {
    const known = componentSchemas[name];
    if (known && !isDeepStrictEqual(known, definition)) throw new Error(`OpenAPI: two different schemas are named ${name}`);
    componentSchemas[name] = definition;
  }
  return toComponentRefs(schema);
}

export const request = (shape: z.ZodType) => schemaOf(shape, "input");
export const success = (data: z.ZodType) => schemaOf(successShape(data));
export const uuid = schemaOf(uuidShape);

/**
 * components.schemas, asked for after every operation has named its own, so they come in
 * the order the operations use them. WebhookEvent joins them although no operation
 * refers to it: a receiver checks any webhook body against it.
 */
export function namedSchemas(): Record<string, JsonSchema> {
  schemaOf(webhookEventShape);
  return componentSchemas;
}

/**
 * components.headers. `required` marks a header sent on every answer the header is
 * listed for: the request id always, Retry-After on every 429 and 503. The rate headers
 * are required on a success only (rateHeaders); on an error they come only when the
 * call got that far (keyedErrorResponse).
 */
export const headerComponents = {
  "X-Request-Id": {
    description: "The request's id: the incoming one when it is 1–128 safe characters, else a new UUID.",
    required: true,
    schema: { type: "string" },
  },
  RateLimit: {
    description:
      "draft-ietf-httpapi-ratelimit-headers-11: requests left and seconds until the bucket is full. Sent on every success, and on an error once the key passed authentication and the plan check (so not with a 401, a PLAN_REQUIRED, or the 429 or 503 of authentication itself).",
    schema: { type: "string", pattern: "^\"store\";r=[0-9]+;t=[0-9]+$" },
  },
  "RateLimit-Policy": {
    description: "The store's quota per 60 s window. Sent whenever `RateLimit` is.",
    schema: { type: "string", pattern: "^\"store\";q=[0-9]+;w=60$" },
  },
  "Retry-After": { description: "Seconds to wait.", required: true, schema: { type: "string", pattern: "^[0-9]+$" } },
};

const headerRef = (name: keyof typeof headerComponents) => ({ $ref: `#/components/headers/${name}` });

/** The headers of a keyed call's success: the request id and the rate headers, always. */
export const rateHeaders = {
  "X-Request-Id": headerRef("X-Request-Id"),
  RateLimit: { ...headerComponents.RateLimit, required: true },
  "RateLimit-Policy": { ...headerComponents["RateLimit-Policy"], required: true },
};

/** An error answer: the envelope, the request id and `headers`. */
export const errorResponse = (description: string, headers: Record<string, object> = {}, examples?: Record<string, object>) => ({
  description,
  headers: { "X-Request-Id": headerRef("X-Request-Id"), ...headers },
  content: { "application/json": { schema: schemaOf(errorEnvelopeShape), ...(examples ? { examples } : {}) } },
});

/**
 * An error answer to a keyed call. The guards set the rate headers before the scope
 * check, the body and the route (gateway/guards.ts), so an error from any of those
 * carries them; they are listed as optional because one from authentication or the
 * plan check comes before them.
 */
export const keyedErrorResponse = (description: string, headers: Record<string, object> = {}, examples?: Record<string, object>) =>
  errorResponse(description, { RateLimit: headerRef("RateLimit"), "RateLimit-Policy": headerRef("RateLimit-Policy"), ...headers }, examples);

/**
 * What any call with an API key may answer besides its own responses. 413 and 415
 * too: the guards read a body on every keyed route, a GET's included.
 */
export const keyedErrors = {
  "400": { $ref: "#/components/responses/InvalidRequest" },
  "401": { $ref: "#/components/responses/Unauthorized" },
  "403": { $ref: "#/components/responses/Forbidden" },
  "413": { $ref: "#/components/responses/PayloadTooLarge" },
  "415": { $ref: "#/components/responses/UnsupportedMediaType" },
  "429": { $ref: "#/components/responses/RateLimited" },
  "500": { $ref: "#/components/responses/InternalError" },
  "503": { $ref: "#/components/responses/ServiceUnavailable" },
};

/** A query integer as gateway/query.ts reads it, with the bounds the routes give it. */
export const strictInt = (name: string, { min, max, fallback }: { min: number; max: number; fallback: number }, description: string) => ({
  name,
  in: "query",
  required: false,
  description: `${description} A whole number; \`1.5\`, \`10abc\`, \`-1\`, an empty value or a repeated parameter is INVALID_REQUEST.`,
  schema: { type: "integer", minimum: min, maximum: max, default: fallback },
});
