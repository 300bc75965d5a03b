import test from "ava";
import { api } from "../helpers/http.js";
import { createProduct, createStore, ItemStatus, startStack, type Stack } from "../helpers/stack.js";

let stack: Stack;
test.before(async () => {
  stack = await startStack();
});
test.after.always(async () => {
  await stack?.close();
});

test("lists only the key's own published items, oldest first, across pages", async (t) => {
  const a = await createStore(stack, undefined, "Store A");
  const b = await createStore(stack, undefined, "Store B");
  const mine = [];
  for (let n = 0; n < 5; n++) mine.push(await createProduct(stack, a.storeId, `A product ${n}`, 1000 + n));
  await createProduct(stack, b.storeId, "B product", 5000);
  await createProduct(stack, a.storeId, "A draft", 10, ItemStatus.DRAFT);
  await createProduct(stack, a.storeId, "A archived", 10, ItemStatus.ARCHIVED);
  const { item: bundle } = await stack.catalog.createBundle({
    storeId: a.storeId,
    title: "A bundle",
    price: 1500n,
    status: ItemStatus.PUBLISHED,
    productIds: [mine[0]!.id, mine[1]!.id],
  });

  const seen: any[] = [];
  for (let offset = 0; ; offset += 2) {
    const page = await api(stack.baseUrl, `/v1/products?limit=2&offset=${offset}`, { key: a.key });
    t.is(page.status, 200);
    t.true(page.body.success);
    seen.push(...page.body.data.items);
    if (!page.body.data.has_more) break;
  }
  t.deepEqual(
    seen.map((item) => item.id),
    [...mine.map((item) => item.id), bundle!.id],
  );
  t.deepEqual(seen.at(-1), {
    id: bundle!.id,
    type: "bundle",
    title: "A bundle",
    slug: "a-bundle",
    price: 1500,
    status: "published",
  });
  t.true(seen.slice(0, 5).every((item) => item.type === "product" && item.status === "published"));

  const other = await api(stack.baseUrl, "/v1/products", { key: b.key });
  t.deepEqual(other.body.data.items.map((item: any) => item.title), ["B product"]);
  t.false(other.body.data.has_more);
});
