// The webhook pages' routes, each to a named handler: the list (list.tsx), an endpoint's
// page (detail.tsx), the posts made from it (actions.ts) and deleting it (delete.tsx).
// A delivery's own pages are registered by ../deliveries.tsx.
import type { RouterInstance as Router } from "@koa/router";
import { isUuid } from "../../../../common/ids.js";
import type { Endpoint } from "../../../../gen/webhook/v1/webhook_pb.js";
import type { DashboardContext, Kit } from "../../kit.js";
import { webhookClientOr, webhookRoute, type WebhookClient } from "../deliveries.js";
import {
  disableEndpoint,
  editEndpoint,
  enableEndpoint,
  removeHeader,
  resendFailed,
  revealHeaders,
  revealSecret,
  rotateSecret,
  saveRate,
  sendTestEvent,
  setHeader,
} from "./actions.js";
import { confirmDelete, deleteEndpoint } from "./delete.js";
import { endpointDetail } from "./detail.js";
import { addEndpoint, endpointList } from "./list.js";

/** The endpoint of the URL (NOT_FOUND, so a 404 page, when it is not this store's); undefined for a malformed id. */
async function loadEndpoint(webhook: WebhookClient, ctx: DashboardContext) {
  const endpointId = ctx.params.endpointId ?? "";
  if (!isUuid(endpointId)) return undefined;
  return (await webhook.getEndpoint({ storeId: ctx.state.scope.store.id, endpointId: endpointId.toLowerCase() })).endpoint;
}

export function webhookPages(router: Router, kit: Kit) {
  const { handle, storeScope } = kit;
  const base = "/dashboard/stores/:storeId/webhooks";

  /** A page of the store's webhooks, or the page saying the gateway runs without the webhook service. */
  const withWebhook = (work: (ctx: DashboardContext, webhook: WebhookClient) => Promise<void>) =>
    handle(async (ctx: DashboardContext) => {
      const webhook = webhookClientOr(ctx, kit, "webhooks", "Webhooks");
      if (!webhook) return;
      await work(ctx, webhook);
    });

  /** A route of one endpoint of this store (webhookRoute). */
  const endpointRoute = (
    method: "get" | "post",
    path: string,
    work: (ctx: DashboardContext, webhook: WebhookClient, endpoint: Endpoint) => Promise<void>,
  ) => webhookRoute(router, kit, method, `${base}/:endpointId${path}`, loadEndpoint, work);

  router.get(base, storeScope, withWebhook(endpointList));
  router.post(base, storeScope, withWebhook(addEndpoint));
  endpointRoute("get", "", endpointDetail);
  endpointRoute("post", "", editEndpoint);
  endpointRoute("post", "/reveal-secret", revealSecret);
  endpointRoute("post", "/rotate-secret", rotateSecret);
  endpointRoute("post", "/test", sendTestEvent);
  endpointRoute("post", "/enable", enableEndpoint);
  endpointRoute("post", "/disable", disableEndpoint);
  endpointRoute("post", "/rate", saveRate);
  endpointRoute("post", "/headers", setHeader);
  endpointRoute("post", "/headers/remove", removeHeader);
  endpointRoute("post", "/headers/reveal", revealHeaders);
  endpointRoute("post", "/resend", resendFailed);
  endpointRoute("get", "/delete", confirmDelete);
  endpointRoute("post", "/delete", deleteEndpoint);
}
