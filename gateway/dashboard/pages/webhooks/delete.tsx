// Deleting an endpoint: a page that says what is lost, then the post that deletes it.
import type { Endpoint } from "../../../../gen/webhook/v1/webhook_pb.js";
import { Breakable } from "../../../html/components.js";
import { forbiddenPage, may, seeOtherWith, sendPage, type DashboardContext } from "../../kit.js";
import { Csrf, Shell, storePath } from "../../views/layout.js";
import { withMode } from "../../views/test-data.js";
import { endpointPath, type WebhookClient } from "../deliveries.js";
import { ENDPOINT_DELETED } from "./list.js";

function DeletePage(props: { ctx: DashboardContext; endpoint: Endpoint }) {
  const { member, store, csrf } = props.ctx.state.scope;
  const { endpoint } = props;
  return (
    <Shell title="Delete this endpoint?" member={member} store={store} section="webhooks" csrf={csrf}>
      <div class="card">
        <p>
          Endpoint <Breakable class="mono" text={endpoint.url} /> will receive nothing more: deliveries still waiting are not sent, and its secret is forgotten.
          Its past deliveries stay listed on the Events page. This cannot be undone.
        </p>
        <div class="actions">
          <form method="post" action={endpointPath(store.id, endpoint.id, "delete")}>
            <Csrf token={csrf} />
            <button type="submit" class="danger">
              Delete endpoint
            </button>
          </form>
          <a class="button secondary" href={endpointPath(store.id, endpoint.id)}>
            Keep it
          </a>
        </div>
      </div>
    </Shell>
  );
}

/** GET …/:endpointId/delete: the confirmation. */
export async function confirmDelete(ctx: DashboardContext, _webhook: WebhookClient, endpoint: Endpoint) {
  // A confirmation of what the role may not do is refused like the post it leads to.
  if (!may(ctx, "developer_settings")) return forbiddenPage(ctx, "developer_settings");
  sendPage(ctx, <DeletePage ctx={ctx} endpoint={endpoint} />);
}

/** POST …/:endpointId/delete: deletes it and goes back to the list. */
export async function deleteEndpoint(ctx: DashboardContext, webhook: WebhookClient, endpoint: Endpoint) {
  const storeId = ctx.state.scope.store.id;
  await webhook.deleteEndpoint({ storeId, endpointId: endpoint.id });
  seeOtherWith(ctx, withMode(storePath(storeId, "webhooks"), !endpoint.livemode), { message: ENDPOINT_DELETED });
}
