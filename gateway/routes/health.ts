import type { RouterInstance as Router } from "@koa/router";
import { HealthCheckResponse_ServingStatus as ServingStatus } from "../../gen/grpc/health/v1/health_pb.js";
import type { Sql } from "../../platform/db.js";
import type { ServiceClients } from "../clients.js";
import type { GatewayContext } from "../context.js";
import type { Logger } from "../../platform/logger.js";
import { ApiError } from "../errors.js";

/**
 * /healthz: the process answers. /readyz: the database and every internal service
 * answer too (and NATS, when configured); 503 naming each failed check otherwise.
 * /metrics is not here: it has a port of its own (METRICS_PORT, platform/metrics.ts).
 */
export function healthRoutes(
  router: Router,
  deps: { sql: Sql; clients: ServiceClients; logger: Logger; extraChecks?: Record<string, () => Promise<void>> },
) {
  router.get("/healthz", liveness);
  router.get("/readyz", readiness);

  function liveness(ctx: GatewayContext) {
    ctx.body = { success: true, data: { status: "ok" } };
  }

  async function readiness(ctx: GatewayContext) {
    const checks: Record<string, () => Promise<void>> = {
      database: async () => {
        await deps.sql`select 1`;
      },
      ...Object.fromEntries(
        Object.entries(deps.clients.health).map(([name, client]): [string, () => Promise<void>] => [
          name,
          async () => {
            const answer = await client.check({ service: "" }, { timeoutMs: 1_000 });
            if (answer.status !== ServingStatus.SERVING) throw new Error("not serving");
          },
        ]),
      ),
      ...deps.extraChecks,
    };
    const results = Object.fromEntries(
      await Promise.all(
        Object.entries(checks).map(async ([name, check]): Promise<[string, "ok" | "unavailable"]> => {
          try {
            await check();
            return [name, "ok"];
          } catch (error) {
            // The reason stays in the log: it names hosts and ports.
            deps.logger.warn({ check: name, err: (error as Error).message }, "readiness check failed");
            return [name, "unavailable"];
          }
        }),
      ),
    );
    const failed = Object.entries(results).filter(([, result]) => result !== "ok");
    if (failed.length > 0) {
      throw new ApiError(503, "SERVICE_UNAVAILABLE", "not ready", failed.map(([field, message]) => ({ field, message })), { "Retry-After": "5" });
    }
    ctx.body = { success: true, data: { status: "ready", checks: results } };
  }
}
