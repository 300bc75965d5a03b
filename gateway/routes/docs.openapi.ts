// GET /v1/openapi.json in the document it serves. A file of its own like the other
// routes' paths, and necessarily so here: docs.ts imports the assembled document.
import type { PathItems } from "../openapi-parts.js";

export function docsPaths(): PathItems {
  return {
    "/v1/openapi.json": {
      get: {
        operationId: "openApi",
        tags: ["Meta"],
        summary: "This document",
        security: [],
        responses: {
          "200": {
            description: "OpenAPI 3.1",
            headers: {
              "X-Request-Id": { $ref: "#/components/headers/X-Request-Id" },
              "Cache-Control": { required: true, schema: { type: "string", const: "public, max-age=300" } },
            },
            content: { "application/json": { schema: { type: "object" } } },
          },
        },
      },
    },
  };
}
