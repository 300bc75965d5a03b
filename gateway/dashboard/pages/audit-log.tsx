// Audit log (CONTRACT §10): who changed what, newest first.
import type { RouterInstance as Router } from "@koa/router";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { storeAuditLog } from "../../../services/lib/audit-log.js";
import { Time } from "../../views/components.js";
import { sendPage, type DashboardContext, type Kit } from "../kit.js";
import { Empty, Shell } from "../views/layout.js";

export function auditLogPages(router: Router, kit: Kit) {
  const { clients, handle, storeScope } = kit;
  router.get(
    "/dashboard/stores/:storeId/audit-log",
    storeScope,
    handle(async (ctx: DashboardContext) => {
      const { member, store, csrf } = ctx.state.scope;
      // Each service keeps the entries of its own changes: the log is their parts merged.
      const { entries, unavailable } = await storeAuditLog({ catalog: clients.accounts, order: clients.order, webhook: clients.webhook }, store.id, 200);
      const missing = unavailable.length > 0 ? `The ${unavailable.join(" and ")} service's entries cannot be shown just now: the list below is incomplete.` : undefined;
      sendPage(
        ctx,
        <Shell title="Audit log" member={member} store={store} section="audit-log" csrf={csrf} error={missing}>
          {entries.length === 0 ? (
            <Empty title="Nothing recorded yet">
              <p>Sign-ins and every change to keys, endpoints, orders and settings will be listed here.</p>
            </Empty>
          ) : (
            <div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th>Time</th>
                    <th>Actor</th>
                    <th>Action</th>
                    <th>Target</th>
                  </tr>
                </thead>
                <tbody>
                  {entries.map((entry) => (
                    <tr>
                      <td>
                        <Time iso={entry.at ? timestampDate(entry.at).toISOString() : ""} />
                      </td>
                      <td class="mono">{entry.actor}</td>
                      <td>{entry.action}</td>
                      <td class="mono">{entry.target}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </Shell>,
      );
    }),
  );
}
