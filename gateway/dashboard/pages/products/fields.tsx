// The fields of a product or bundle as the dashboard's forms hold them (docs/dashboard.md#products):
// what a person typed, read back into a catalog request, and the catalog's refusals
// shown at the field they name. The catalog holds every rule (slugs, prices, stock);
// this only turns text into numbers and says which box was wrong.
import { Code, ConnectError } from "@connectrpc/connect";
import { ITEM_STATUSES, type ItemStatusName } from "../../../../common/api-shapes.js";
import { itemStatusNameOf, itemStatusOf } from "../../../../common/public-json.js";
import { ItemType, type ItemStatus, type Item } from "../../../../gen/catalog/v1/catalog_pb.js";
import { fieldViolations } from "../../../../platform/field-errors.js";
import { field, parseWholeNumber, type Form } from "../../forms.js";

// The status names are the API's (common/api-shapes.ts), mapped by common/public-json.ts.
export const STATUS_NAMES = ITEM_STATUSES;
export type StatusName = ItemStatusName;

export const STATUS_LABELS: Record<StatusName, string> = { draft: "Draft", published: "Published", archived: "Archived" };

export function statusName(status: ItemStatus): StatusName {
  return itemStatusNameOf(status) ?? "draft";
}

export const statusValue = itemStatusOf;

export const typeLabel = (item: Item) => (item.type === ItemType.BUNDLE ? "Bundle" : "Product");

/** The boxes of the form; "items" is a bundle's product quantities. */
export type FieldName = "title" | "slug" | "price" | "status" | "stock" | "items";

const LABELS: Record<FieldName, string> = { title: "Title", slug: "Slug", price: "Price", status: "Status", stock: "Stock", items: "Products" };

/** What was wrong, and the box it belongs to when one is named. */
export interface FormProblem {
  field?: FieldName;
  message: string;
}

/** What the form holds, as text: as posted, or as the item is. */
export interface ItemValues {
  title: string;
  slug: string;
  price: string;
  status: StatusName;
  /** Empty: stock is not tracked. */
  stock: string;
  /** A bundle's quantity per product id, as typed ("" or "0": not in the bundle). */
  quantities: Record<string, string>;
}

export const EMPTY_VALUES: ItemValues = { title: "", slug: "", price: "", status: "draft", stock: "", quantities: {} };

export function valuesOf(item: Item): ItemValues {
  return {
    title: item.title,
    slug: item.slug,
    price: String(item.price),
    status: statusName(item.status),
    stock: item.stock === undefined ? "" : String(item.stock),
    quantities: Object.fromEntries(item.bundleItems.map((line) => [line.productId, String(line.quantity)])),
  };
}

const quantityField = (productId: string) => `quantity.${productId}`;

/** The posted values; `prefix` reads the copy of the values the form was shown with ("was."). */
export function valuesFrom(form: Form, prefix = ""): ItemValues {
  const status = field(form, `${prefix}status`) as StatusName;
  const quantities: Record<string, string> = {};
  for (const name of Object.keys(form)) {
    if (name.startsWith(`${prefix}quantity.`)) quantities[name.slice(`${prefix}quantity.`.length)] = field(form, name).trim();
  }
  return {
    title: field(form, `${prefix}title`).trim(),
    slug: field(form, `${prefix}slug`).trim(),
    price: field(form, `${prefix}price`).trim(),
    status: STATUS_NAMES.includes(status) ? status : "draft",
    stock: field(form, `${prefix}stock`).trim(),
    quantities,
  };
}

/** The values as numbers for the catalog, or the first box that holds no whole number. */
export function parseValues(values: ItemValues):
  | { price: bigint; stock: bigint | undefined; bundleItems: { productId: string; quantity: number }[] }
  | { problem: FormProblem } {
  const price = parseWholeNumber(values.price);
  if (price === undefined || price === null) return { problem: { field: "price", message: "Price: a whole number of rupiah, such as 150000." } };
  const stock = parseWholeNumber(values.stock);
  if (stock === null) return { problem: { field: "stock", message: "Stock: a whole number of units, 0 or more, or empty when you do not count this item's stock." } };
  const bundleItems: { productId: string; quantity: number }[] = [];
  for (const [productId, text] of Object.entries(values.quantities)) {
    const quantity = parseWholeNumber(text);
    // Past int32 it could not even be sent; below, the catalog says its own limit.
    if (quantity === null || (quantity !== undefined && quantity > 2_147_483_647n)) {
      return { problem: { field: "items", message: "Products: each quantity is a whole number, 0 for a product not in the bundle." } };
    }
    if (quantity) bundleItems.push({ productId, quantity: Number(quantity) });
  }
  return { price, stock, bundleItems };
}

/** A bundle's products as one comparable text: "id:2,id2:1" in id order. */
export const quantitiesKey = (quantities: Record<string, string>) =>
  Object.entries(quantities)
    .map(([id, text]) => [id, String(parseWholeNumber(text) ?? text)] as const)
    .filter(([, quantity]) => quantity !== "0" && quantity !== "undefined")
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([id, quantity]) => `${id}:${quantity}`)
    .join(",");

const FIELD_ROOTS: Record<string, FieldName> = { title: "title", slug: "slug", price: "price", status: "status", stock: "stock", bundle_items: "items", product_ids: "items", items: "items" };

/**
 * The catalog's refusal of the form's values (a wrong field, a slug in use, a product
 * of another store), at the box it names; undefined for anything else (the kit's pages).
 */
export function serviceProblem(error: unknown): FormProblem | undefined {
  if (!(error instanceof ConnectError)) return undefined;
  if (![Code.InvalidArgument, Code.FailedPrecondition, Code.AlreadyExists].includes(error.code)) return undefined;
  const violation = fieldViolations(error)[0];
  // The catalog writes "slug is already used"; the field may also only be in the message.
  const named = violation?.field ?? /^([a-z_]+)/.exec(error.rawMessage)?.[1] ?? "";
  const box = FIELD_ROOTS[named.split(/[.[]/)[0] ?? ""];
  if (!box) return { message: error.rawMessage };
  const description = violation?.description ?? error.rawMessage.slice(named.length).replace(/^[:\s]+/, "");
  return { field: box, message: `${LABELS[box]}: ${description}` };
}

function Problem(props: { name: FieldName; problem?: FormProblem }) {
  if (props.problem?.field !== props.name) return null;
  return (
    <p id={`${props.name}-problem`} class="field-problem">
      {props.problem.message}
    </p>
  );
}

/** aria attributes of a box: invalid and described by its problem when the problem is its own. */
const invalid = (name: FieldName, problem: FormProblem | undefined, hint?: string) => {
  const own = problem?.field === name;
  const describedBy = [own ? `${name}-problem` : undefined, hint].filter(Boolean).join(" ");
  return { "aria-invalid": own ? ("true" as const) : undefined, "aria-describedby": describedBy || undefined };
};

/**
 * The boxes of a product or bundle: Title, Price, Slug, Status, Stock, and a bundle's
 * products with a quantity each (`choices`: the store's products it may hold).
 */
export function ItemFields(props: { values: ItemValues; problem?: FormProblem; bundle: boolean; choices?: Item[]; creating: boolean }) {
  const { values, problem } = props;
  return (
    <>
      <label>
        Title
        <input type="text" name="title" value={values.title} required autoComplete="off" {...invalid("title", problem)} />
      </label>
      <Problem name="title" problem={problem} />
      <label>
        Price
        <input type="text" inputMode="numeric" name="price" value={values.price} required autoComplete="off" {...invalid("price", problem, "price-hint")} />
      </label>
      <p id="price-hint" class="muted small hint">
        Whole rupiah, such as 150000. A new price applies to orders made afterwards; orders already made keep theirs.
      </p>
      <Problem name="price" problem={problem} />
      <label>
        Slug
        <input type="text" name="slug" value={values.slug} autoComplete="off" {...invalid("slug", problem, "slug-hint")} />
      </label>
      <p id="slug-hint" class="muted small hint">
        {props.creating ? "Optional: made from the title when empty (with -2, -3… when another item has it). " : ""}
        Unique in the store.
      </p>
      <Problem name="slug" problem={problem} />
      {/* Labelled by `for`: a label around a select would take the chosen option into its name. */}
      <div class="field">
        <label for="item-status">Status</label>
        <select id="item-status" name="status" {...invalid("status", problem, "status-hint")}>
          {STATUS_NAMES.map((name) => (
            <option value={name} selected={values.status === name}>
              {STATUS_LABELS[name]}
            </option>
          ))}
        </select>
      </div>
      <p id="status-hint" class="muted small hint">
        Only published items are listed by the API and can be ordered.
      </p>
      <Problem name="status" problem={problem} />
      <label>
        Stock
        <input type="text" inputMode="numeric" name="stock" value={values.stock} autoComplete="off" {...invalid("stock", problem, "stock-hint")} />
      </label>
      <p id="stock-hint" class="muted small hint">
        Units on hand. Empty: stock is not counted and orders are never refused for it.
        {props.bundle ? " A bundle is also limited by the stock of its products." : ""}
      </p>
      <Problem name="stock" problem={problem} />
      {props.bundle && <BundleChoices values={values} problem={problem} choices={props.choices ?? []} />}
    </>
  );
}

function BundleChoices(props: { values: ItemValues; problem?: FormProblem; choices: Item[] }) {
  return (
    <fieldset {...invalid("items", props.problem, "items-hint")}>
      <legend>Products</legend>
      <p id="items-hint" class="muted small" style="margin:0 0 6px">
        How many of each product one bundle holds; 0 for a product that is not in it.
      </p>
      <Problem name="items" problem={props.problem} />
      {props.choices.length === 0 && <p class="muted">The store has no products yet: create them first.</p>}
      {props.choices.map((product) => (
        <div class="quantity">
          <span>{product.title}</span>
          <input
            type="text"
            inputMode="numeric"
            name={quantityField(product.id)}
            value={props.values.quantities[product.id] ?? "0"}
            aria-label={`Quantity of ${product.title}`}
            autoComplete="off"
          />
        </div>
      ))}
    </fieldset>
  );
}

/** The values the form was shown with, posted back beside the changes (`valuesFrom(form, "was.")`). */
export function ShownValues({ values }: { values: ItemValues }) {
  return (
    <>
      <input type="hidden" name="was.title" value={values.title} />
      <input type="hidden" name="was.slug" value={values.slug} />
      <input type="hidden" name="was.price" value={values.price} />
      <input type="hidden" name="was.status" value={values.status} />
      <input type="hidden" name="was.stock" value={values.stock} />
      {Object.entries(values.quantities).map(([id, quantity]) => (
        <input type="hidden" name={`was.${quantityField(id)}`} value={quantity} />
      ))}
    </>
  );
}
