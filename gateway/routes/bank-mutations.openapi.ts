// POST /v1/bank-mutations in the OpenAPI document, beside its route (bank-mutations.ts).
import { bankMutationResultsShape } from "../../common/api-shapes.js";
import { MAX_MUTATIONS_PER_CALL } from "../../common/bank-mutations.js";
import { keyedErrors, rateHeaders, request, success, type PathItems } from "../openapi-parts.js";
import { bankMutationsBody } from "../order-request.js";

export function bankMutationPaths(): PathItems {
  return {
    "/v1/bank-mutations": {
      post: {
        operationId: "reconcileBankMutations",
        tags: ["Reconciliation"],
        summary: "Match incoming bank transfers to bank-transfer orders by their unique amount",
        description: [
          `For bank-feed aggregators: 1–${MAX_MUTATIONS_PER_CALL} mutations per call, bodies up to 1 MiB. Each mutation \`id\` is processed once`,
          "per store; sent again it is `duplicate` with the first result's `order_id`. A credit is `matched` when its amount",
          "equals the `transfer_amount` of exactly one bank-transfer order that is `pending`, or `expired` at most",
          "`BANK_MATCH_GRACE` (default 7 days) before `occurred_at`, and was created before `occurred_at`; that order",
          "becomes `paid` (history cause `bank_mutation` with the mutation id) and the usual webhooks follow. Otherwise",
          "`unmatched` with a `reason`: `no order with this amount`, `order cancelled`, `order already paid` (a double",
          "payment to refund), `transfer before order`, or `ambiguous` (another order with this transfer amount was paid",
          "within `BANK_MATCH_GRACE` before it, so it may be a second payment of that order; it is never paid",
          "automatically); it waits in the dashboard's review list. Debits are `ignored`.",
          "A unique amount stays reserved while its order is pending and for `BANK_MATCH_GRACE` after it expires or is",
          "cancelled, so a late transfer never pays a newer order. The whole body is validated first: invalid",
          "mutations are 400 naming every invalid field (`mutations[3].amount`) and nothing of the call is applied. Results come in request order.",
        ].join(" "),
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: request(bankMutationsBody),
              examples: {
                feed: {
                  summary: "A credit of Rp 170.906 and a bank fee",
                  value: {
                    mutations: [
                      { id: "BCA-20261120-000123", amount: 170_906, type: "credit", occurred_at: "2026-11-20T10:15:00+07:00", description: "TRSF E-BANKING CR 2011/FTSCY/WS95031 BUDI SANTOSO" },
                      { id: "BCA-20261120-000124", amount: 6_500, type: "debit", occurred_at: "2026-11-20T10:20:00+07:00", description: "BIAYA ADM" },
                    ],
                  },
                },
              },
            },
          },
        },
        responses: {
          "200": {
            description: "One result per mutation, in request order.",
            headers: rateHeaders,
            content: { "application/json": { schema: success(bankMutationResultsShape) } },
          },
          ...keyedErrors,
        },
      },
    },
  };
}
