// Payment links (docs/dashboard.md#payment-links, docs/payments.md#payment-links): a seller
// without a developer makes a link of fixed items on their phone and sends it over WhatsApp.
// The list shows each link's public address to copy (a read-only field: selecting it needs
// no script) and to share (a plain wa.me link); "New payment link" makes one; "Deactivate"
// asks first. Every role sees the links; the buttons are for roles with `payment_links`, and
// the order service refuses the rest whatever is posted. The "Test data" switch shows and
// makes test links, whose orders are test orders.
import type { RouterInstance as Router } from "@koa/router";
import { isUuid } from "../../../common/ids.js";
import { fromJakartaLocalInput } from "../../../common/jakarta-time.js";
import { methodName } from "../../../common/payment-methods.js";
import { rupiah } from "../../../common/rupiah.js";
import { ItemStatus, ItemType, type Item } from "../../../gen/catalog/v1/catalog_pb.js";
import type { OrderItemInput, PaymentLink, PaymentMethod } from "../../../gen/order/v1/order_pb.js";
import { Breakable, Time } from "../../html/components.js";
import { field, type Form } from "../forms.js";
import { dashboardMode, flashMessage, forbiddenPage, may, notFoundPage, problemText, seeOther, seeOtherWith, sendPage, type DashboardContext, type Kit } from "../kit.js";
import { Csrf, Empty, Shell, storePath } from "../views/layout.js";
import { TestData, withMode } from "../views/test-data.js";

/** How many item rows the form offers: a link is a few things sold together, not a cart. */
export const ITEM_ROWS = 3;

/** The published items the form offers, at most this many pages of the catalog's 50. */
const PICKER_PAGES = 4;

/** The confirmations shown once by the list after a change. */
const DONE = {
  created: "The link is ready. Copy it or share it on WhatsApp: whoever opens it can pay.",
  deactivated: "The link is deactivated. Whoever opens it now is told it is closed; orders already made through it can still be paid.",
} as const;

/** A link's state as the list shows it (the order service's words, read as of now). */
const STATE: Record<string, { label: string; badge: string }> = {
  open: { label: "Active", badge: "badge-active" },
  inactive: { label: "Deactivated", badge: "badge-revoked" },
  expired: { label: "Expired", badge: "badge-expired" },
  used_up: { label: "Used up", badge: "badge-expired" },
};

/** What the "New payment link" form holds: as posted, or empty with every method ticked. */
export interface LinkValues {
  rows: { item: string; quantity: string }[];
  methods: readonly string[];
  usageLimit: string;
  expires: string;
}

const blank = (methods: PaymentMethod[]): LinkValues => ({
  rows: Array.from({ length: ITEM_ROWS }, () => ({ item: "", quantity: "1" })),
  methods: methods.map((method) => method.code),
  usageLimit: "",
  expires: "",
});

const valuesFrom = (form: Form): LinkValues => ({
  rows: Array.from({ length: ITEM_ROWS }, (_, i) => ({ item: field(form, `item_${i + 1}`), quantity: field(form, `quantity_${i + 1}`).trim() })),
  methods: form.payment_methods ?? [],
  usageLimit: field(form, "usage_limit").trim(),
  expires: field(form, "expires").trim(),
});

/** An item as the picker's value names it: its kind, since an order names products and bundles apart. */
const itemValue = (item: Item) => `${item.type === ItemType.BUNDLE ? "bundle" : "product"}:${item.id}`;

/**
 * The request the form asks for, or the first problem in the form's words. `rowOf[i]` is
 * the form's row of the request's `items[i]`, to name the row a service refusal is about.
 */
export function linkRequest(values: LinkValues): { problem: string } | { items: OrderItemInput[]; rowOf: number[]; usageLimit?: number; expiresAt?: string } {
  const items: OrderItemInput[] = [];
  const rowOf: number[] = [];
  for (const [i, row] of values.rows.entries()) {
    if (row.item === "") continue;
    const [kind, id = ""] = row.item.split(":");
    if ((kind !== "product" && kind !== "bundle") || !isUuid(id)) return { problem: `Item ${i + 1}: choose a product or bundle from the list.` };
    // Six digits fit the service's int32 whatever it allows; it names anything too many.
    if (!/^\d{1,6}$/.test(row.quantity) || Number(row.quantity) < 1) return { problem: `Item ${i + 1}: the quantity must be a whole number of at least 1.` };
    const ref = kind === "bundle" ? { case: "bundleId" as const, value: id } : { case: "productId" as const, value: id };
    items.push({ $typeName: "order.v1.OrderItemInput", ref, quantity: Number(row.quantity) });
    rowOf.push(i + 1);
  }
  if (items.length === 0) return { problem: "Items: choose at least one product or bundle." };
  if (values.methods.length === 0) return { problem: "Payment methods: tick at least one method the buyer may pay with." };
  let usageLimit: number | undefined;
  if (values.usageLimit !== "") {
    if (!/^\d{1,9}$/.test(values.usageLimit) || Number(values.usageLimit) < 1) return { problem: "Usage limit: a whole number of paid orders, at least 1, or empty for no limit." };
    usageLimit = Number(values.usageLimit);
  }
  let expiresAt: string | undefined;
  if (values.expires !== "") {
    // The form's time is Jakarta time, as every time the dashboard shows.
    const date = fromJakartaLocalInput(values.expires);
    if (!date) return { problem: "Expires: a date and time (WIB), or empty for a link that does not expire." };
    expiresAt = date.toISOString();
  }
  return { items, rowOf, usageLimit, expiresAt };
}

/** The service's field names as the form labels them. */
export function formProblem(error: unknown, rowOf: number[]): string | undefined {
  return problemText(error)
    ?.replace(/^items\[(\d+)\](?:\.(\w+))?: /, (_, index: string, what?: string) => `Item ${rowOf[Number(index)] ?? Number(index) + 1}${what === "quantity" ? ", quantity" : ""}: `)
    .replace(/^items: /, "Items: ")
    .replace(/^payment_methods(?:\[\d+\])?: /, "Payment methods: ")
    .replace(/^usage_limit: /, "Usage limit: ")
    .replace(/^expires_at: /, "Expires: ");
}

/** The text a WhatsApp share starts with: the buyer reads it first, in Indonesian (most buyers'), with the address to tap. */
export function whatsAppHref(storeName: string, url: string): string {
  return `https://wa.me/?text=${encodeURIComponent(`Pembayaran untuk ${storeName}: ${url}`)}`;
}

const refId = (input: OrderItemInput) => (input.ref.case ? input.ref.value : "");

/** "2 × Kopi Gayo 250 g", each item by its title (its id when the catalog no longer has it). */
function ItemsText({ link, titles }: { link: PaymentLink; titles: Map<string, string> }) {
  return (
    <ul style="margin:0;padding-left:18px">
      {link.items.map((input) => (
        <li>
          {input.quantity} × {titles.get(refId(input)) ?? <span class="mono">{refId(input)}</span>}
        </li>
      ))}
    </ul>
  );
}

function LinkCard(props: { ctx: DashboardContext; link: PaymentLink; titles: Map<string, string> }) {
  const { store } = props.ctx.state.scope;
  const { link } = props;
  const state = STATE[link.state] ?? { label: link.state, badge: "badge-expired" };
  const id = `link-${link.id}`;
  return (
    <li class="card" aria-labelledby={`${id}-title`}>
      <div class="person" style="margin-bottom:8px">
        <strong id={`${id}-title`} class="mono">
          <Breakable text={`/pay/${link.slug}`} />
        </strong>
        <span class={`badge ${state.badge}`}>{state.label}</span>
      </div>
      <ItemsText link={link} titles={props.titles} />
      {link.state === "open" && (
        <>
          <label style="margin-top:10px">
            Copy link
            <input type="text" readOnly value={link.url} class="mono" aria-describedby={`${id}-copy`} />
          </label>
          <p id={`${id}-copy`} class="muted small" style="margin:2px 0 8px">
            Select the address and copy it, or share it straight to a chat.
          </p>
        </>
      )}
      <dl class="details small" style="margin-top:8px">
        <dt>Payment methods</dt>
        <dd>{link.paymentMethods.map(methodName).join(", ")}</dd>
        <dt>Paid orders</dt>
        <dd>{link.usageLimit === undefined ? `${link.paidCount} (no limit)` : `${link.paidCount} of ${link.usageLimit}`}</dd>
        <dt>Awaiting payment</dt>
        <dd>{link.pendingCount}</dd>
        <dt>Expires</dt>
        <dd>{link.expiresAt ? <Time iso={link.expiresAt} /> : <span class="muted">Never</span>}</dd>
        <dt>Created</dt>
        <dd>
          <Time iso={link.createdAt} />
        </dd>
      </dl>
      {link.state === "open" && (
        <div class="actions" style="margin-bottom:0">
          <a class="button secondary" href={whatsAppHref(store.name, link.url)} target="_blank" rel="noopener noreferrer">
            Share on WhatsApp
          </a>
          {may(props.ctx, "payment_links") && (
            <a class="button danger" href={withMode(storePath(store.id, `payment-links/${link.id}/deactivate`), !link.livemode)}>
              Deactivate
            </a>
          )}
        </div>
      )}
    </li>
  );
}

function NewLinkForm(props: { ctx: DashboardContext; picker: Item[]; methods: PaymentMethod[]; values: LinkValues }) {
  const { store, csrf } = props.ctx.state.scope;
  const { testMode } = dashboardMode(props.ctx);
  const { values } = props;
  return (
    <>
      <h2 id="new-link">New payment link</h2>
      {props.picker.length === 0 ? (
        <Empty title="Nothing to sell yet">
          <p>A link sells published products or bundles. Publish one on the Products page first.</p>
        </Empty>
      ) : (
        <form class="stack card" method="post" action={withMode(storePath(store.id, "payment-links"), testMode)} aria-labelledby="new-link">
          <Csrf token={csrf} />
          {testMode && <p class="muted small" style="margin:0">This makes a test link: its orders are test orders, paid only in the sandbox.</p>}
          {values.rows.map((row, i) => (
            <fieldset>
              <legend>Item {i + 1}</legend>
              {/* Label above field, as the form's other fields (a fieldset's labels are otherwise checkbox rows). */}
              <div style="display:flex;flex-wrap:wrap;gap:8px 12px;align-items:end">
                <label style="display:grid;gap:4px;font-weight:600;flex:1 1 200px;min-width:0">
                  Product or bundle
                  <select name={`item_${i + 1}`}>
                    <option value="">{i === 0 ? "Choose…" : "None"}</option>
                    {props.picker.map((item) => (
                      <option value={itemValue(item)} selected={row.item === itemValue(item)}>
                        {item.title}
                        {item.type === ItemType.BUNDLE ? " (bundle)" : ""} · {rupiah(item.price)}
                      </option>
                    ))}
                  </select>
                </label>
                <label style="display:grid;gap:4px;font-weight:600;flex:0 0 7em">
                  Quantity
                  <input type="number" name={`quantity_${i + 1}`} min={1} step={1} inputMode="numeric" value={row.quantity} />
                </label>
              </div>
            </fieldset>
          ))}
          <fieldset>
            <legend>Payment methods</legend>
            {props.methods.map((method) => (
              <label>
                <input type="checkbox" name="payment_methods" value={method.code} checked={values.methods.includes(method.code)} />
                {method.name}
              </label>
            ))}
          </fieldset>
          <label>
            Usage limit
            <input type="number" name="usage_limit" min={1} step={1} inputMode="numeric" value={values.usageLimit} aria-describedby="usage-note" />
          </label>
          <p id="usage-note" class="muted small" style="margin:-8px 0 0">
            Paid orders the link takes; empty for no limit. Orders already awaiting payment when it is reached may still be paid.
          </p>
          <label>
            Expires
            <input type="datetime-local" name="expires" value={values.expires} aria-describedby="expires-note" />
          </label>
          <p id="expires-note" class="muted small" style="margin:-8px 0 0">
            Jakarta time (WIB); empty for a link that does not expire.
          </p>
          <div>
            <button type="submit">Create link</button>
          </div>
        </form>
      )}
    </>
  );
}

interface PageData {
  links: PaymentLink[];
  titles: Map<string, string>;
  picker: Item[];
  methods: PaymentMethod[];
}

function LinksPage(props: { ctx: DashboardContext; data: PageData; values?: LinkValues; error?: string; flash?: string }) {
  const { member, store, csrf } = props.ctx.state.scope;
  const { testMode } = dashboardMode(props.ctx);
  const { links } = props.data;
  return (
    <Shell title="Payment links" member={member} store={store} section="payment-links" csrf={csrf} flash={props.flash} error={props.error}>
      <TestData path={storePath(store.id, "payment-links")} query={props.ctx.query} testMode={testMode} />
      <p class="muted">
        A payment link is an address for fixed items: send it over WhatsApp or anywhere, and whoever opens it fills in their name and pays. Its orders are on the{" "}
        <a href={withMode(storePath(store.id, "orders"), testMode)}>Orders</a> page like any other.
      </p>
      {links.length === 0 ? (
        <Empty title={testMode ? "No test payment links yet" : "No payment links yet"}>
          {may(props.ctx, "payment_links") && <p>Make one below: choose what it sells and press "Create link".</p>}
        </Empty>
      ) : (
        <ul class="people" aria-label="Payment links">
          {links.map((link) => (
            <LinkCard ctx={props.ctx} link={link} titles={props.data.titles} />
          ))}
        </ul>
      )}
      {may(props.ctx, "payment_links") && <NewLinkForm ctx={props.ctx} picker={props.data.picker} methods={props.data.methods} values={props.values ?? blank(props.data.methods)} />}
    </Shell>
  );
}

function DeactivatePage(props: { ctx: DashboardContext; link: PaymentLink }) {
  const { member, store, csrf } = props.ctx.state.scope;
  const { link } = props;
  const testMode = !link.livemode;
  return (
    <Shell title="Deactivate this link?" member={member} store={store} section="payment-links" csrf={csrf}>
      <div class="card">
        <p style="margin-top:0">
          <Breakable class="mono" text={link.url} /> will stop taking orders at once: whoever opens it is told it is closed. Orders already made through it can still be
          paid. This cannot be undone; make a new link to sell again.
        </p>
        <div class="actions">
          <form method="post" action={withMode(storePath(store.id, `payment-links/${link.id}/deactivate`), testMode)}>
            <Csrf token={csrf} />
            <button type="submit" class="danger">
              Deactivate link
            </button>
          </form>
          <a class="button secondary" href={withMode(storePath(store.id, "payment-links"), testMode)}>
            Keep it
          </a>
        </div>
      </div>
    </Shell>
  );
}

export function paymentLinkPages(router: Router, kit: Kit) {
  const { clients, handle, storeScope } = kit;
  const base = "/dashboard/stores/:storeId/payment-links";

  router.get(base, storeScope, handle(linksPage));
  router.post(base, storeScope, handle(createLink));
  router.get(`${base}/:linkId/deactivate`, storeScope, handle(confirmDeactivate));
  router.post(`${base}/:linkId/deactivate`, storeScope, handle(deactivate));

  const listLinks = async (ctx: DashboardContext) =>
    (await clients.order.listPaymentLinks({ storeId: ctx.state.scope.store.id, testMode: dashboardMode(ctx).testMode })).links;

  /** The store's published items, for the form's picker (only a published item can be ordered). */
  async function publishedItems(storeId: string): Promise<Item[]> {
    const items: Item[] = [];
    for (let page = 0; page < PICKER_PAGES; page++) {
      const found = await clients.catalog.listItems({ storeId, status: ItemStatus.PUBLISHED, limit: 50, offset: page * 50 });
      items.push(...found.items);
      if (!found.hasMore) break;
    }
    return items;
  }

  /** What the page shows: the links with their items' titles, and for a role that may make links, the form's choices. */
  async function pageData(ctx: DashboardContext): Promise<PageData> {
    const storeId = ctx.state.scope.store.id;
    const manages = may(ctx, "payment_links");
    const [links, picker, methods] = await Promise.all([
      listLinks(ctx),
      manages ? publishedItems(storeId) : Promise.resolve([]),
      manages ? clients.order.listPaymentMethods({ storeId }).then((found) => found.methods) : Promise.resolve([]),
    ]);
    const ids = [...new Set(links.flatMap((link) => link.items.map(refId)))].filter((id) => id !== "");
    // Titles as the catalog has them now, any status: a link may sell an item archived since.
    const items = ids.length === 0 ? [] : (await clients.catalog.getItems({ storeId, ids })).items;
    return { links, picker, methods, titles: new Map(items.map((item) => [item.id, item.title])) };
  }

  const findLink = async (ctx: DashboardContext) => {
    const linkId = (ctx.params.linkId ?? "").toLowerCase();
    if (!isUuid(linkId)) return undefined;
    return (await listLinks(ctx)).find((link) => link.id === linkId);
  };

  async function linksPage(ctx: DashboardContext) {
    sendPage(ctx, <LinksPage ctx={ctx} data={await pageData(ctx)} flash={flashMessage(ctx)} />);
  }

  async function createLink(ctx: DashboardContext) {
    const storeId = ctx.state.scope.store.id;
    const { testMode } = dashboardMode(ctx);
    // Refused before the form is read: a role without the form gets no opinion on what it posted.
    if (!may(ctx, "payment_links")) return forbiddenPage(ctx, "payment_links");
    const values = valuesFrom(ctx.state.scope.form);
    const request = linkRequest(values);
    if ("problem" in request) return sendPage(ctx, <LinksPage ctx={ctx} data={await pageData(ctx)} values={values} error={request.problem} />, 400);
    try {
      // The order service checks the member's role (payment_links), the items and methods, and makes a test link in test mode.
      await clients.order.createPaymentLink({
        storeId,
        items: request.items,
        paymentMethods: [...values.methods],
        usageLimit: request.usageLimit,
        expiresAt: request.expiresAt,
        testMode,
      });
    } catch (error) {
      const problem = formProblem(error, request.rowOf);
      if (!problem) throw error;
      return sendPage(ctx, <LinksPage ctx={ctx} data={await pageData(ctx)} values={values} error={problem} />, 400);
    }
    seeOtherWith(ctx, withMode(storePath(storeId, "payment-links"), testMode), { message: DONE.created });
  }

  async function confirmDeactivate(ctx: DashboardContext) {
    // A confirmation of what the role may not do is refused like the post it leads to.
    if (!may(ctx, "payment_links")) return forbiddenPage(ctx, "payment_links");
    const link = await findLink(ctx);
    if (!link) return notFoundPage(ctx);
    if (!link.active) return seeOther(ctx, withMode(storePath(ctx.state.scope.store.id, "payment-links"), !link.livemode));
    sendPage(ctx, <DeactivatePage ctx={ctx} link={link} />);
  }

  async function deactivate(ctx: DashboardContext) {
    const storeId = ctx.state.scope.store.id;
    const { testMode } = dashboardMode(ctx);
    const linkId = (ctx.params.linkId ?? "").toLowerCase();
    if (!isUuid(linkId)) return notFoundPage(ctx);
    // The order service checks the role, finds the link in this store and mode (else NOT_FOUND, the kit's 404) and audits it.
    await clients.order.deactivatePaymentLink({ storeId, linkId, testMode });
    seeOtherWith(ctx, withMode(storePath(storeId, "payment-links"), testMode), { message: DONE.deactivated });
  }
}
