// Bank mutations (CONTRACT §10, §11): the page exists so the navigation is whole;
// matching transfers to orders comes with the reconciliation work.
import type { RouterInstance as Router } from "@koa/router";
import { sendPage, type DashboardContext, type Kit } from "../kit.js";
import { Empty, Shell, storePath } from "../views/layout.js";

export function bankMutationPages(router: Router, kit: Kit) {
  const { handle, storeScope } = kit;
  router.get(
    "/dashboard/stores/:storeId/bank-mutations",
    storeScope,
    handle(async (ctx: DashboardContext) => {
      const { member, store, csrf } = ctx.state.scope;
      sendPage(
        ctx,
        <Shell title="Bank mutations" member={member} store={store} section="bank-mutations" csrf={csrf}>
          <Empty title="Automatic matching of bank transfers is coming">
            <p>
              Until then, when a transfer arrives, find the order by its payment reference on the <a href={storePath(store.id, "orders")}>Orders</a> page and
              mark it as paid.
            </p>
          </Empty>
        </Shell>,
      );
    }),
  );
}
