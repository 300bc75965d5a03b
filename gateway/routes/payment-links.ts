// /v1/payment-links (docs/api.md#payment-links): a key makes, lists and deactivates its
// store's payment links. The order service checks every value and the key's right
// (orders:write to change, checked here by the guards and there by the permission).
import type { RouterInstance as Router } from "@koa/router";
import type { PaymentLink } from "../../gen/order/v1/order_pb.js";
import type { ServiceClients } from "../clients.js";
import type { KeyedGuards } from "../guards.js";
import { ok, type RouteContext } from "../context.js";
import { invalidField } from "../errors.js";
import { cancelOrderBody, createPaymentLinkBody, createPaymentLinkFields, parseBody } from "../order-request.js";
import type { z } from "zod";
import type { paymentLinkShape } from "../../common/api-shapes.js";
import { isUuid } from "../../common/ids.js";

/** A link as the public API shows it. */
export function paymentLinkJson(link: PaymentLink): z.output<typeof paymentLinkShape> {
  return {
    id: link.id,
    url: link.url,
    slug: link.slug,
    active: link.active,
    livemode: link.livemode,
    items: link.items.map((item) => ({
      ...(item.ref.case === "bundleId" ? { bundle_id: item.ref.value } : { product_id: item.ref.value ?? "" }),
      quantity: item.quantity,
    })),
    payment_methods: link.paymentMethods,
    usage_limit: link.usageLimit ?? null,
    paid_count: link.paidCount,
    expires_at: link.expiresAt ?? null,
    created_at: link.createdAt,
  };
}

export function paymentLinkRoutes(router: Router, guards: KeyedGuards, clients: ServiceClients) {
  router.post("/v1/payment-links", ...guards.for("POST /v1/payment-links"), createLink);
  router.get("/v1/payment-links", ...guards.for("GET /v1/payment-links"), listLinks);
  router.post("/v1/payment-links/:link_id/deactivate", ...guards.for("POST /v1/payment-links/{link_id}/deactivate"), deactivateLink);

  async function createLink(ctx: RouteContext) {
    const body = parseBody(createPaymentLinkBody, ctx.state.body);
    const principal = ctx.state.principal!;
    const { link } = await clients.order.createPaymentLink({ storeId: principal.storeId, testMode: !principal.livemode, ...createPaymentLinkFields(body) });
    ok(ctx, paymentLinkJson(link!), 201);
  }

  async function listLinks(ctx: RouteContext) {
    const principal = ctx.state.principal!;
    const { links } = await clients.order.listPaymentLinks({ storeId: principal.storeId, testMode: !principal.livemode });
    ok(ctx, { items: links.map(paymentLinkJson) });
  }

  async function deactivateLink(ctx: RouteContext) {
    const linkId = ctx.params.link_id ?? "";
    if (!isUuid(linkId)) throw invalidField("link_id", "must be a UUID");
    // Takes no body, as cancelling an order takes none.
    if (ctx.state.body !== undefined) parseBody(cancelOrderBody, ctx.state.body);
    const principal = ctx.state.principal!;
    const { link } = await clients.order.deactivatePaymentLink({ storeId: principal.storeId, linkId, testMode: !principal.livemode });
    ok(ctx, paymentLinkJson(link!));
  }
}
