import type { RouterInstance as Router } from "@koa/router";
import type { BankMutationResults } from "../../common/api-shapes.js";
import type { ServiceClients } from "../clients.js";
import type { KeyedGuards } from "../guards.js";
import { ok, type GatewayContext } from "../context.js";
import { bankMutationsBody, mutationFields, parseBody } from "../order-request.js";

type MutationResult = BankMutationResults["results"][number];

/** docs/reconciliation.md#the-api: up to 500 mutations in one body of at most 1 MiB. */
const BANK_MUTATIONS_BODY_BYTES = 1024 * 1024;

/** POST /v1/bank-mutations: a bank feed's incoming mutations, matched to orders by their unique amount. */
export function bankMutationRoutes(router: Router, guards: KeyedGuards, clients: ServiceClients) {
  router.post("/v1/bank-mutations", ...guards.for("POST /v1/bank-mutations", BANK_MUTATIONS_BODY_BYTES), reconcileBankMutations);

  async function reconcileBankMutations(ctx: GatewayContext) {
    const body = parseBody(bankMutationsBody, ctx.state.body);
    const { results } = await clients.bank.reconcileMutations({
      storeId: ctx.state.principal!.storeId,
      // A test key's mutations match test orders only (docs/reconciliation.md#test-mode).
      testMode: !ctx.state.principal!.livemode,
      mutations: mutationFields(body),
    });
    // The order service gives these from the shape's lists (common/bank-mutations.ts for the reasons).
    ok(ctx, {
      results: results.map((r) => ({
        id: r.id,
        result: r.result as MutationResult["result"],
        order_id: r.orderId || null,
        reason: (r.reason || null) as MutationResult["reason"],
      })),
    } satisfies BankMutationResults);
  }
}
