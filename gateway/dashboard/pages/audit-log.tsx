// Audit log (docs/team.md#audit-log): who changed what, newest first, as sentences whose targets
// link to their pages; a settings change shows each field before → after. Filters by
// actor and action; pages follow a cursor, so an entry is never skipped or shown twice
// while new ones arrive.
import type { RouterInstance as Router } from "@koa/router";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { isAuditAction, MAX_AUDIT_ACTOR_LENGTH } from "../../../common/audit.js";
import { AUDIT_ACTION_CHOICES, auditActorText, auditFieldText, auditSentence } from "../../../common/audit-text.js";
import { decodeAuditCursor, storeAuditLog, type AuditEntryLike } from "../../../platform/audit-log.js";
import { Breakable, Reference, Time } from "../../html/components.js";
import { sendPage, type DashboardContext, type Kit } from "../kit.js";
import { Empty, Shell, storePath } from "../views/layout.js";
import { DataTable } from "../views/data-table.js";

const PAGE_SIZE = 50;

interface Filters {
  actor: string;
  action: string;
}

/** The page a target's kind has, if any: `id` is the target's id (an email for a member). */
function targetHref(storeId: string, kind: string, id: string): string | undefined {
  switch (kind) {
    case "order":
      return storePath(storeId, `orders/${encodeURIComponent(id)}`);
    case "endpoint":
      return storePath(storeId, `webhooks/${encodeURIComponent(id)}`);
    case "delivery":
      return storePath(storeId, `deliveries/${encodeURIComponent(id)}`);
    case "key":
      return storePath(storeId, "api-keys");
    case "mutation":
      return storePath(storeId, "bank-mutations");
    case "member":
      return storePath(storeId, "team");
    case "store":
      return storePath(storeId, "settings");
    default:
      return undefined;
  }
}

function Sentence({ storeId, entry }: { storeId: string; entry: AuditEntryLike }) {
  const { before, target, after } = auditSentence(entry);
  const href = target && targetHref(storeId, target.kind, target.id);
  // An order by its reference, whole; an email or a URL breaking only between its parts.
  const name = target && (target.kind === "order" ? <Reference value={target.name} /> : <Breakable text={target.name} />);
  return (
    <>
      {before}
      {target && " "}
      {target && (href ? <a href={href}>{name}</a> : <strong>{name}</strong>)}
      {after && ` ${after}`}
      {entry.changes.length > 0 && (
        <ul class="changes small">
          {entry.changes.map((change) => (
            <li>
              <span class="muted">{auditFieldText(change.field)}:</span> <span class="was">{change.before ? <Breakable text={change.before} /> : "(empty)"}</span> → <span>{change.after ? <Breakable text={change.after} /> : "(empty)"}</span>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

function AuditPage(props: { ctx: DashboardContext; entries: AuditEntryLike[]; next?: string; filters: Filters; paged: boolean; missing?: string }) {
  const { member, store, csrf } = props.ctx.state.scope;
  const { actor, action } = props.filters;
  const here = storePath(store.id, "audit-log");
  const withFilters = (extra: Record<string, string> = {}) => `${here}?${new URLSearchParams({ ...(actor ? { actor } : {}), ...(action ? { action } : {}), ...extra })}`;
  const filtered = actor !== "" || action !== "";
  return (
    <Shell title="Audit log" member={member} store={store} section="audit-log" csrf={csrf} error={props.missing}>
      <form class="inline card" method="get" action={here} role="search">
        <label style="flex:1 1 200px">
          Actor
          <input type="search" name="actor" value={actor} placeholder="Member email, operator, system" />
        </label>
        <label style="flex:1 1 200px">
          Action
          <select name="action">
            <option value="">Any</option>
            {AUDIT_ACTION_CHOICES.map((choice) => (
              <option value={choice.action} selected={choice.action === action}>
                {choice.text}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">Filter</button>
        {filtered && (
          <a class="button secondary" href={here}>
            Clear
          </a>
        )}
      </form>
      {props.entries.length === 0 ? (
        filtered || props.paged ? (
          <Empty title="No entry matches">
            <p>Clear the filters to see every change.</p>
          </Empty>
        ) : (
          <Empty title="Nothing recorded yet">
            <p>Sign-ins and every change to keys, endpoints, orders and settings will be listed here.</p>
          </Empty>
        )
      ) : (
        <DataTable head={["Time", "Who", "What"]}>
          {props.entries.map((entry) => (
            <tr>
              <td>
                <Time iso={entry.at ? timestampDate(entry.at).toISOString() : ""} />
              </td>
              <td>
                <a href={withFilters({ actor: entry.actor })} title={`Only the changes of ${auditActorText(entry.actor)}`}>
                  <Breakable text={auditActorText(entry.actor)} />
                </a>
              </td>
              <td>
                <Sentence storeId={store.id} entry={entry} />
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <p class="actions">
        {props.paged && (
          <a class="button secondary" href={withFilters()}>
            Newest
          </a>
        )}
        {props.next && (
          <a class="button secondary" href={withFilters({ cursor: props.next })} rel="next">
            Older entries
          </a>
        )}
      </p>
    </Shell>
  );
}

export function auditLogPages(router: Router, kit: Kit) {
  const { clients, handle, storeScope } = kit;
  router.get("/dashboard/stores/:storeId/audit-log", storeScope, handle(auditLogPage));

  async function auditLogPage(ctx: DashboardContext) {
    const { store } = ctx.state.scope;
    const text = (name: string) => (typeof ctx.query[name] === "string" ? ctx.query[name].trim() : "");
    // An unknown action or an over-long actor filters nothing rather than failing the page.
    const filters: Filters = {
      actor: text("actor").slice(0, MAX_AUDIT_ACTOR_LENGTH),
      action: isAuditAction(text("action")) ? text("action") : "",
    };
    // A mangled cursor starts from the newest rather than failing the page.
    const cursor = decodeAuditCursor(text("cursor")) ? text("cursor") : "";
    // Each service keeps the entries of its own changes: the log is their parts merged.
    const sources = { catalog: clients.accounts, order: clients.order, webhook: clients.webhook };
    const page = await storeAuditLog(sources, store.id, { limit: PAGE_SIZE, cursor: cursor || undefined, ...filters });
    const missing = page.unavailable.length > 0 ? `The ${page.unavailable.join(" and ")} service's entries cannot be shown just now: the list below is incomplete.` : undefined;
    sendPage(ctx, <AuditPage ctx={ctx} entries={page.entries} next={page.next} filters={filters} paged={cursor !== ""} missing={missing} />);
  }
}
