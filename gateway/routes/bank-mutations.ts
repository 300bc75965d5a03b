import type { RouterInstance as Router, RouterMiddleware } from "@koa/router";
import type { ServiceClients } from "../clients.js";
import { ok, type GatewayContext } from "../context.js";
import { bankMutationsBody, parseBody } from "../order-request.js";

/** CONTRACT §11: up to 500 mutations in one body of at most 1 MiB. */
export const BANK_MUTATIONS_BODY_BYTES = 1024 * 1024;

/** POST /v1/bank-mutations: a bank feed's incoming mutations, matched to orders by their unique amount. */
export function bankMutationRoutes(router: Router, guards: RouterMiddleware<any, any>[], clients: ServiceClients) {
  router.post("/v1/bank-mutations", ...guards, async (ctx: GatewayContext) => {
    const body = parseBody(bankMutationsBody, ctx.state.body);
    const { results } = await clients.bank.reconcileMutations({
      storeId: ctx.state.principal!.storeId,
      mutations: body.mutations.map((m) => ({
        id: m.id,
        amount: BigInt(m.amount),
        type: m.type,
        occurredAt: m.occurred_at,
        description: m.description ?? "",
      })),
    });
    ok(ctx, {
      results: results.map((r) => ({ id: r.id, result: r.result, order_id: r.orderId || null, reason: r.reason || null })),
    });
  });
}
