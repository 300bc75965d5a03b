// The Products page (docs/dashboard.md#products): every item of the store whatever its
// status, newest first, with its stock and what new orders may still take. Every role
// sees it; "New product" and "New bundle" only for a role with the catalog permission.
import type { Item } from "../../../../gen/catalog/v1/catalog_pb.js";
import type { ServiceClients } from "../../../clients.js";
import { Money } from "../../../html/components.js";
import { may, sendPage, type DashboardContext } from "../../kit.js";
import { DataTable } from "../../views/data-table.js";
import { Empty, Shell, storePath } from "../../views/layout.js";
import { STATUS_LABELS, statusName, typeLabel } from "./fields.js";

const PAGE = 50;

/** Units on hand: "Not tracked", a number, or below zero a number marked "Oversold". */
export function StockText({ stock }: { stock: bigint | undefined }) {
  if (stock === undefined) return <span class="muted">Not tracked</span>;
  if (stock >= 0n) return <span class="num">{String(stock)}</span>;
  return (
    <>
      <span class="num">{String(stock)}</span> <span class="badge badge-oversold">Oversold</span>
    </>
  );
}

/** What new orders may still take: a number, or "No limit" when nothing limits it. */
export function AvailableText({ available }: { available: bigint | undefined }) {
  if (available === undefined) return <span class="muted">No limit</span>;
  return <span class="num">{String(available)}</span>;
}

export function ItemStatusBadge({ item }: { item: Item }) {
  const name = statusName(item.status);
  return <span class={`badge badge-${name}`}>{STATUS_LABELS[name]}</span>;
}

function ProductsPage(props: { ctx: DashboardContext; items: Item[]; offset: number; hasMore: boolean }) {
  const { member, store, csrf } = props.ctx.state.scope;
  const path = storePath(store.id, "products");
  return (
    <Shell title="Products" member={member} store={store} section="products" csrf={csrf}>
      {may(props.ctx, "catalog") && (
        <div class="actions">
          <a class="button" href={`${path}/new`}>
            New product
          </a>
          <a class="button secondary" href={`${path}/new-bundle`}>
            New bundle
          </a>
        </div>
      )}
      {props.items.length === 0 ? (
        <Empty title={props.offset === 0 ? "No products yet" : "No more products"}>
          {props.offset === 0 && <p>Products and bundles made here, with the API or with store-admin are listed here, whatever their status.</p>}
        </Empty>
      ) : (
        <DataTable head={["Title", "Type", "Status", "Price", "Stock", "Available"]}>
          {props.items.map((item) => (
            <tr>
              <td>
                <a href={`${path}/${item.id}`}>{item.title}</a>{" "}
                <div class="muted small mono">{item.slug}</div>
              </td>
              <td>{typeLabel(item)}</td>
              <td>
                <ItemStatusBadge item={item} />
              </td>
              <td>
                <Money amount={item.price} />
              </td>
              <td>
                <StockText stock={item.stock} />
              </td>
              <td>
                <AvailableText available={item.available} />
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      {(props.offset > 0 || props.hasMore) && (
        <div class="actions">
          {props.offset > 0 && (
            <a class="button secondary" href={path}>
              Newest products
            </a>
          )}
          {props.hasMore && (
            <a class="button secondary" href={`${path}?offset=${props.offset + PAGE}`}>
              Older products
            </a>
          )}
        </div>
      )}
    </Shell>
  );
}

/** GET …/products[?offset=N]. */
export async function productList(ctx: DashboardContext, clients: ServiceClients) {
  const asked = Number(ctx.query.offset);
  const offset = Number.isSafeInteger(asked) && asked > 0 ? asked : 0;
  const { items, hasMore } = await clients.catalog.listItems({ storeId: ctx.state.scope.store.id, limit: PAGE, offset });
  sendPage(ctx, <ProductsPage ctx={ctx} items={items} offset={offset} hasMore={hasMore} />);
}
