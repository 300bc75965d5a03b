// The document's operations are the gateway's /v1 routes, no more and no fewer: each
// route module documents its own paths beside it, and this catches a route added
// without them, or paths left behind by a route that went away.
import test from "ava";
import type Router from "@koa/router";
import { createGatewayApp, type GatewayDeps } from "../../gateway/app.js";
import { openApiDocument } from "../../gateway/openapi.js";

/** "GET /v1/orders/{order_id}" for every route the gateway answers under /v1. */
function registeredV1Routes(): string[] {
  // Nothing here is called: the app is only built, to read the routes it registers.
  const deps = {
    sql: {},
    clients: { health: {} },
    logger: {},
    ratePerMinute: 60,
    authFailuresPerMinute: 10,
    publicBaseUrl: "http://localhost",
    midtransServerKey: "unused",
  } as unknown as GatewayDeps;
  const app = createGatewayApp(deps);
  const router = app.middleware.map((fn) => (fn as { router?: Router }).router).find((r) => r !== undefined);
  if (!router) throw new Error("the gateway app has no router");
  return router.stack.flatMap(({ path, methods }) =>
    typeof path === "string" && path.startsWith("/v1/")
      ? methods
          // HEAD comes with every GET by itself; the document does not list it.
          .filter((method) => method !== "HEAD")
          .map((method) => `${method} ${path.replace(/:(\w+)/g, "{$1}")}`)
      : [],
  ).sort();
}

function documentedOperations(): string[] {
  return Object.entries(openApiDocument.paths)
    .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))
    .sort();
}

test("every /v1 route of the gateway is an operation of the OpenAPI document, and every operation a route", (t) => {
  const routes = registeredV1Routes();
  t.true(routes.length > 0);
  t.deepEqual(routes, documentedOperations());
});
