import type { RouterInstance as Router, RouterMiddleware } from "@koa/router";
import { HealthCheckResponse_ServingStatus as ServingStatus } from "../../gen/grpc/health/v1/health_pb.js";
import type { Sql } from "../../services/lib/db.js";
import type { ServiceClients } from "../clients.js";
import type { GatewayContext } from "../context.js";
import type { Logger } from "../../services/lib/logger.js";
import { metricsText } from "../../services/lib/metrics.js";
import { ApiError } from "../errors.js";

/**
 * /healthz: the process answers. /readyz: the database and every internal service
 * answer too; 503 with each check's result otherwise.
 */
export function healthRoutes(
  router: Router,
  deps: { sql: Sql; clients: ServiceClients; logger: Logger; extraChecks?: Record<string, () => Promise<void>> },
) {
  router.get("/healthz", (ctx: GatewayContext) => {
    ctx.body = { success: true, data: { status: "ok" } };
  });

  router.get("/metrics", async (ctx: GatewayContext) => {
    const { contentType, body } = await metricsText();
    ctx.type = contentType;
    ctx.body = body;
  });

  router.get("/readyz", async (ctx: GatewayContext) => {
    const checks: Record<string, () => Promise<void>> = {
      database: async () => {
        await deps.sql`select 1`;
      },
      ...Object.fromEntries(
        Object.entries(deps.clients.health).map(([name, client]) => [
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
        Object.entries(checks).map(async ([name, check]) => {
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
      throw new ApiError(503, "SERVICE_UNAVAILABLE", "not ready", failed.map(([field, message]) => ({ field, message: String(message) })), { "Retry-After": "5" });
    }
    ctx.body = { success: true, data: { status: "ready", checks: results } };
  });
}
