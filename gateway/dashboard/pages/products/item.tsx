// A product's or bundle's own pages (docs/dashboard.md#products): "New product", "New
// bundle", an item's page that changes any of its fields, and "Archive", confirmed.
// The catalog checks the member's role (the catalog permission), validates and audits
// each change in its transaction; a role without the permission sees the item and no
// form, and its forged post is the kit's 403.
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { isUuid } from "../../../../common/ids.js";
import { ItemStatus, ItemType, type Item } from "../../../../gen/catalog/v1/catalog_pb.js";
import type { ServiceClients } from "../../../clients.js";
import { Money, Time } from "../../../html/components.js";
import { flashMessage, forbiddenPage, may, notFoundPage, seeOther, seeOtherWith, sendPage, type DashboardContext } from "../../kit.js";
import { DataTable } from "../../views/data-table.js";
import { Csrf, Shell, storePath } from "../../views/layout.js";
import {
  EMPTY_VALUES,
  ItemFields,
  parseValues,
  quantitiesKey,
  serviceProblem,
  ShownValues,
  STATUS_LABELS,
  statusValue,
  typeLabel,
  valuesFrom,
  valuesOf,
  type FieldName,
  type FormProblem,
  type ItemValues,
} from "./fields.js";
import { AvailableText, ItemStatusBadge, StockText } from "./list.js";

/** The confirmations shown once by an item's page after a change. */
const DONE = {
  created: "Created.",
  saved: "Changes saved. New orders use them; orders already made keep theirs.",
  unchanged: "Nothing to save: no field was changed.",
  archived: "Archived. The API no longer lists it and new orders cannot include it; orders already made keep it.",
} as const;

const iso = (value: Item["createdAt"]) => (value ? timestampDate(value).toISOString() : "");

/** How many of the store's newest items the choice of a bundle's products looks through: four of ListItems' largest pages. */
const CHOICES = 200;
const CHOICE_PAGE = 50;

/**
 * The store's products a bundle may hold, by title: the newest CHOICES that are not
 * archived, and always those it holds already (`holding`), whatever their age or
 * status, so a save never drops a product the form did not show.
 */
async function productChoices(ctx: DashboardContext, clients: ServiceClients, holding: Item[] = []): Promise<Item[]> {
  const items: Item[] = [];
  for (let offset = 0; offset < CHOICES; offset += CHOICE_PAGE) {
    const page = await clients.catalog.listItems({ storeId: ctx.state.scope.store.id, limit: CHOICE_PAGE, offset });
    items.push(...page.items);
    if (!page.hasMore) break;
  }
  const offered = items.filter((item) => item.type === ItemType.PRODUCT && item.status !== ItemStatus.ARCHIVED && !holding.some((held) => held.id === item.id));
  return [...holding, ...offered].sort((a, b) => a.title.localeCompare(b.title));
}

/** The item of the URL in this store, or undefined (a malformed id, another store's item). */
async function loadItem(ctx: DashboardContext, clients: ServiceClients): Promise<Item | undefined> {
  const itemId = (ctx.params.itemId ?? "").toLowerCase();
  if (!isUuid(itemId)) return undefined;
  const { items } = await clients.catalog.getItems({ storeId: ctx.state.scope.store.id, ids: [itemId] });
  return items.find((item) => item.id === itemId);
}

function NewItemPage(props: { ctx: DashboardContext; bundle: boolean; values: ItemValues; choices: Item[]; problem?: FormProblem }) {
  const { member, store, csrf } = props.ctx.state.scope;
  const action = storePath(store.id, props.bundle ? "products/new-bundle" : "products/new");
  return (
    <Shell title={props.bundle ? "New bundle" : "New product"} member={member} store={store} section="products" csrf={csrf} error={props.problem?.message}>
      <form class="stack card" method="post" action={action}>
        <Csrf token={csrf} />
        <ItemFields values={props.values} problem={props.problem} bundle={props.bundle} choices={props.choices} creating />
        <div class="actions">
          <button type="submit">{props.bundle ? "Create bundle" : "Create product"}</button>
          <a class="button secondary" href={storePath(store.id, "products")}>
            Back to products
          </a>
        </div>
      </form>
    </Shell>
  );
}

function ItemPage(props: {
  ctx: DashboardContext;
  item: Item;
  /** The bundle's products, by id. */
  parts: Map<string, Item>;
  choices: Item[];
  values: ItemValues;
  /** What the form was shown with (the item as it is, unless a save is being repeated). */
  shown: ItemValues;
  flash?: string;
  problem?: FormProblem;
}) {
  const { member, store, csrf } = props.ctx.state.scope;
  const { item } = props;
  const path = storePath(store.id, `products/${item.id}`);
  const bundle = item.type === ItemType.BUNDLE;
  return (
    <Shell title={item.title} member={member} store={store} section="products" csrf={csrf} flash={props.flash} error={props.problem?.message}>
      {item.stock !== undefined && item.stock < 0n && (
        <p class="warning" role="alert">
          Oversold: {String(-item.stock)} more {item.stock === -1n ? "unit was" : "units were"} sold than the store had. A payment came in after its order's
          hold had been released and the units sold to someone else. Set the stock to what you have once you have dealt with it.
        </p>
      )}
      <div class="card">
        <dl class="details">
          <dt>Type</dt>
          <dd>{typeLabel(item)}</dd>
          <dt>Status</dt>
          <dd>
            <ItemStatusBadge item={item} />
          </dd>
          <dt>Price</dt>
          <dd>
            <Money amount={item.price} />
          </dd>
          <dt>Slug</dt>
          <dd class="mono">{item.slug}</dd>
          <dt>Stock</dt>
          <dd>
            <StockText stock={item.stock} />
          </dd>
          <dt>Available</dt>
          <dd>
            <AvailableText available={item.available} />
          </dd>
          <dt>Item id</dt>
          <dd class="mono">{item.id}</dd>
          <dt>Created</dt>
          <dd>
            <Time iso={iso(item.createdAt)} />
          </dd>
          <dt>Last changed</dt>
          <dd>
            <Time iso={iso(item.updatedAt)} />
          </dd>
        </dl>
        {may(props.ctx, "catalog") && item.status !== ItemStatus.ARCHIVED && (
          <div class="actions">
            <a class="button danger" href={`${path}/archive`}>
              Archive
            </a>
          </div>
        )}
      </div>
      {bundle && (
        <>
          <h2>Products in this bundle</h2>
          <DataTable head={["Product", "Quantity", "Stock", "Available"]}>
            {item.bundleItems.map((line) => {
              const part = props.parts.get(line.productId);
              return (
                <tr>
                  <td>{part ? <a href={storePath(store.id, `products/${part.id}`)}>{part.title}</a> : <span class="mono">{line.productId}</span>}</td>
                  <td class="num">{String(line.quantity)}</td>
                  <td>
                    <StockText stock={part?.stock} />
                  </td>
                  <td>
                    <AvailableText available={part?.available} />
                  </td>
                </tr>
              );
            })}
          </DataTable>
        </>
      )}
      {may(props.ctx, "catalog") && (
        <>
          <h2 id="change">Change</h2>
          <form class="stack card" method="post" action={path} aria-labelledby="change">
            <Csrf token={csrf} />
            <ShownValues values={props.shown} />
            <ItemFields values={props.values} problem={props.problem} bundle={bundle} choices={props.choices} creating={false} />
            <div>
              <button type="submit">Save changes</button>
            </div>
          </form>
        </>
      )}
    </Shell>
  );
}

function ArchivePage(props: { ctx: DashboardContext; item: Item }) {
  const { member, store, csrf } = props.ctx.state.scope;
  const path = storePath(store.id, `products/${props.item.id}`);
  const what = typeLabel(props.item).toLowerCase();
  return (
    <Shell title={`Archive this ${what}?`} member={member} store={store} section="products" csrf={csrf}>
      <div class="card">
        <p>
          <strong>{props.item.title}</strong> will no longer be listed by the API and new orders cannot include it. Orders already made keep it. You can publish it
          again later from its page.
        </p>
        <div class="actions">
          <form method="post" action={`${path}/archive`}>
            <Csrf token={csrf} />
            <button type="submit" class="danger">
              Archive
            </button>
          </form>
          <a class="button secondary" href={path}>
            Keep it
          </a>
        </div>
      </div>
    </Shell>
  );
}

/** The item's page as it is now, with the form showing `values` (the item's, or what was posted). */
async function showItem(
  ctx: DashboardContext,
  clients: ServiceClients,
  item: Item,
  extra: { values?: ItemValues; shown?: ItemValues; flash?: string; problem?: FormProblem } = {},
  status = 200,
) {
  const bundle = item.type === ItemType.BUNDLE;
  const partIds = item.bundleItems.map((line) => line.productId);
  const parts = bundle && partIds.length ? (await clients.catalog.getItems({ storeId: item.storeId, ids: partIds })).items : [];
  const choices = bundle && may(ctx, "catalog") ? await productChoices(ctx, clients, parts) : [];
  const shown = extra.shown ?? valuesOf(item);
  sendPage(
    ctx,
    <ItemPage
      ctx={ctx}
      item={item}
      parts={new Map(parts.map((part) => [part.id, part]))}
      choices={choices}
      values={extra.values ?? shown}
      shown={shown}
      flash={extra.flash}
      problem={extra.problem}
    />,
    status,
  );
}

/** GET …/products/new and …/products/new-bundle. */
export function newItemForm(bundle: boolean) {
  return async (ctx: DashboardContext, clients: ServiceClients) => {
    if (!may(ctx, "catalog")) return forbiddenPage(ctx, "catalog");
    const choices = bundle ? await productChoices(ctx, clients) : [];
    sendPage(ctx, <NewItemPage ctx={ctx} bundle={bundle} values={EMPTY_VALUES} choices={choices} />);
  };
}

/** POST …/products/new and …/products/new-bundle: the item, then its page; a refused value is the form again. */
export function createItem(bundle: boolean) {
  return async (ctx: DashboardContext, clients: ServiceClients) => {
    if (!may(ctx, "catalog")) return forbiddenPage(ctx, "catalog");
    const storeId = ctx.state.scope.store.id;
    const values = valuesFrom(ctx.state.scope.form);
    const again = async (problem: FormProblem) =>
      sendPage(ctx, <NewItemPage ctx={ctx} bundle={bundle} values={values} choices={bundle ? await productChoices(ctx, clients) : []} problem={problem} />, 400);
    const parsed = parseValues(values);
    if ("problem" in parsed) return again(parsed.problem);
    const common = {
      storeId,
      title: values.title,
      slug: values.slug,
      price: parsed.price,
      status: statusValue(values.status),
      // Absent: not tracked.
      stock: parsed.stock === undefined ? undefined : { quantity: parsed.stock },
    };
    try {
      const { item } = bundle
        ? await clients.catalog.createBundle({ ...common, bundleItems: parsed.bundleItems })
        : await clients.catalog.createProduct(common);
      seeOtherWith(ctx, storePath(storeId, `products/${item!.id}`), { message: DONE.created });
    } catch (error) {
      const problem = serviceProblem(error);
      if (!problem) throw error;
      await again(problem);
    }
  };
}

/** GET …/products/:itemId. */
export async function itemDetail(ctx: DashboardContext, clients: ServiceClients) {
  const item = await loadItem(ctx, clients);
  if (!item) return notFoundPage(ctx);
  await showItem(ctx, clients, item, { flash: flashMessage(ctx) });
}

const FIELD_NAMES = ["title", "slug", "price", "status", "stock"] as const satisfies readonly FieldName[];

/**
 * POST …/products/:itemId: the fields the person changed, and only those, so a field
 * that changed meanwhile (stock, as orders are paid) is not set back to what the page
 * showed. A field changed here AND meanwhile is the form again, showing it as it is now.
 */
export async function saveItem(ctx: DashboardContext, clients: ServiceClients) {
  if (!may(ctx, "catalog")) return forbiddenPage(ctx, "catalog");
  const item = await loadItem(ctx, clients);
  if (!item) return notFoundPage(ctx);
  const { form } = ctx.state.scope;
  const posted = valuesFrom(form);
  const shown = valuesFrom(form, "was.");
  const now = valuesOf(item);
  const bundle = item.type === ItemType.BUNDLE;
  const changed = new Set<FieldName>(FIELD_NAMES.filter((name) => posted[name] !== shown[name]));
  if (bundle && quantitiesKey(posted.quantities) !== quantitiesKey(shown.quantities)) changed.add("items");
  if (changed.size === 0) return seeOtherWith(ctx, storePath(item.storeId, `products/${item.id}`), { message: DONE.unchanged });

  // The form again as it was sent, still compared with what it was first shown with.
  const again = (problem: FormProblem) => showItem(ctx, clients, item, { values: posted, shown, problem }, 400);
  const meanwhile = [...changed].find((name) => (name === "items" ? quantitiesKey(now.quantities) !== quantitiesKey(shown.quantities) : now[name] !== shown[name]));
  if (meanwhile) {
    const label = meanwhile === "items" ? "The bundle's products" : `${meanwhile[0]!.toUpperCase()}${meanwhile.slice(1)}`;
    const was = meanwhile === "items" ? "" : ` (now ${meanwhile === "status" ? STATUS_LABELS[now.status] : now[meanwhile] || "empty"})`;
    // The item as it is now, with the person's other changes kept; that box shows the value it has now.
    const kept = (name: FieldName) => changed.has(name) && name !== meanwhile;
    const values: ItemValues = {
      ...now,
      ...Object.fromEntries(FIELD_NAMES.filter(kept).map((name) => [name, posted[name]])),
      quantities: kept("items") ? posted.quantities : now.quantities,
    };
    const problem = { field: meanwhile, message: `${label} changed${was} since this page was opened. Check it and save again.` };
    return showItem(ctx, clients, item, { values, problem }, 409);
  }
  // Only the boxes changed are read: an oversold stock (below zero) left as it is, say, is no number one could type.
  const parsed = parseValues({
    ...posted,
    price: changed.has("price") ? posted.price : "0",
    stock: changed.has("stock") ? posted.stock : "",
    quantities: changed.has("items") ? posted.quantities : {},
  });
  if ("problem" in parsed) return again(parsed.problem);
  try {
    // The catalog checks the member's role and audits the change with it.
    await clients.catalog.updateItem({
      storeId: item.storeId,
      itemId: item.id,
      title: changed.has("title") ? posted.title : undefined,
      slug: changed.has("slug") ? posted.slug : undefined,
      price: changed.has("price") ? parsed.price : undefined,
      status: changed.has("status") ? statusValue(posted.status) : ItemStatus.UNSPECIFIED,
      // Present without a quantity: no longer tracked.
      stock: changed.has("stock") ? { quantity: parsed.stock } : undefined,
      replaceBundleItems: changed.has("items"),
      bundleItems: changed.has("items") ? parsed.bundleItems : [],
    });
    seeOtherWith(ctx, storePath(item.storeId, `products/${item.id}`), { message: DONE.saved });
  } catch (error) {
    const problem = serviceProblem(error);
    if (!problem) throw error;
    await again(problem);
  }
}

/** GET …/products/:itemId/archive: the confirmation. */
export async function confirmArchive(ctx: DashboardContext, clients: ServiceClients) {
  if (!may(ctx, "catalog")) return forbiddenPage(ctx, "catalog");
  const item = await loadItem(ctx, clients);
  if (!item) return notFoundPage(ctx);
  if (item.status === ItemStatus.ARCHIVED) return seeOther(ctx, storePath(item.storeId, `products/${item.id}`));
  sendPage(ctx, <ArchivePage ctx={ctx} item={item} />);
}

/** POST …/products/:itemId/archive. */
export async function archiveItem(ctx: DashboardContext, clients: ServiceClients) {
  if (!may(ctx, "catalog")) return forbiddenPage(ctx, "catalog");
  const item = await loadItem(ctx, clients);
  if (!item) return notFoundPage(ctx);
  const itemPage = storePath(item.storeId, `products/${item.id}`);
  // Archived already (a second tab, a double click): the outcome is the same.
  if (item.status === ItemStatus.ARCHIVED) return seeOtherWith(ctx, itemPage, { message: DONE.archived });
  await clients.catalog.updateItem({ storeId: item.storeId, itemId: item.id, status: ItemStatus.ARCHIVED });
  seeOtherWith(ctx, itemPage, { message: DONE.archived });
}
