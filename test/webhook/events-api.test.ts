// GET /v1/events on the real stack (docs/webhooks.md#events-api): what a receiving
// endpoint got is what the API lists, `data` byte for byte; the filters, paging with
// starting_after to the end, a 404 for an event id that is not the store's, and 400s
// naming the bad parameter. Every answer matches the OpenAPI document.
import test from "ava";
import { randomUUID } from "node:crypto";
import { api, waitFor } from "../helpers/http.js";
import { createOpenApiValidator } from "../helpers/openapi.js";
import { startStack, type Stack } from "../helpers/stack.js";
import { createOrder, newShop, shopWithReceiver } from "../helpers/webhooks.js";

let stack: Stack;
test.before(async () => {
  stack = await startStack({ webhooks: { bus: "in-process" } });
});
test.after.always(async () => {
  await stack?.close();
});

/** The raw `data` of a webhook body: the body's last key, so everything after `"data":` but the closing brace. */
const rawData = (body: string) => body.slice(body.indexOf('"data":') + '"data":'.length, -1);

test("GET /v1/events lists what the endpoint received, data byte for byte; filters, starting_after paging, 404 and 400s", async (t) => {
  const { shop, receiver } = await shopWithReceiver(stack);
  t.teardown(() => receiver.close());
  const other = await newShop(stack, "Other Store");
  const v = createOpenApiValidator();
  const get = async (query: string, key = shop.key) => {
    const response = await api(stack.baseUrl, `/v1/events${query}`, { key });
    const problem = v.checkResponse("GET", "/v1/events", response.status, response.body);
    t.is(problem, undefined, `GET /v1/events${query} → ${response.status}: ${problem}\n${response.text}`);
    return response;
  };

  const first = await createOrder(t, stack, shop, "bank_transfer");
  const second = await createOrder(t, stack, shop, "bank_transfer");
  await stack.orders.markOrderPaid({ storeId: shop.storeId, orderId: second.id });
  await createOrder(t, stack, other, "bank_transfer");
  // order.created twice, then orderUpdated and order.paid; the other store's one event logged too.
  await waitFor(() => receiver.received.length >= 4, 30_000);
  await waitFor(async () => (await stack.webhooks!.listEvents({ storeId: other.storeId })).events.length === 1, 30_000);

  const all = await get("?limit=100");
  t.is(all.status, 200, all.text);
  const { items, has_more } = all.body.data;
  t.false(has_more);
  t.is(items.length, receiver.received.length, "every event the endpoint got, and only this store's");
  for (const entry of receiver.received) {
    const item = items.find((candidate: any) => candidate.id === entry.headers["webhook-id"]);
    t.truthy(item, `the event ${String(entry.headers["webhook-id"])} is listed`);
    t.is(item.type, JSON.parse(entry.body).type);
    t.deepEqual(item.data, JSON.parse(entry.body).data);
    t.true(all.text.includes(`"data":${rawData(entry.body)}}`), "the very bytes the webhook carried");
  }
  const times = items.map((item: any) => Date.parse(item.created_at));
  t.deepEqual(times, [...times].sort((a, b) => b - a), "newest first");

  const paid = await get("?type=order.paid");
  t.deepEqual(paid.body.data.items.map((item: any) => item.data.order.id), [second.id]);
  const ofFirst = await get(`?order_id=${first.id}`);
  t.deepEqual(ofFirst.body.data.items.map((item: any) => item.type), ["order.created"]);

  // One at a time to the end: every event once, in the same order.
  const walked: string[] = [];
  let page = await get("?limit=1");
  for (;;) {
    walked.push(...page.body.data.items.map((item: any) => item.id));
    if (!page.body.data.has_more) break;
    page = await get(`?limit=1&starting_after=${walked[walked.length - 1]}`);
  }
  t.deepEqual(walked, items.map((item: any) => item.id));

  const unknown = await get(`?starting_after=${randomUUID()}`);
  t.is(unknown.status, 404);
  t.is(unknown.body.error.code, "NOT_FOUND");
  const othersEvent = (await get("?limit=1", other.key)).body.data.items[0].id;
  t.is((await get(`?starting_after=${othersEvent}`)).status, 404, "another store's event");

  const badType = await get("?type=order.shipped");
  t.is(badType.status, 400);
  t.like(badType.body.error, { code: "INVALID_REQUEST" });
  t.is(badType.body.error.details[0].field, "type");
  for (const limit of ["0", "101", "ten"]) {
    const badLimit = await get(`?limit=${limit}`);
    t.is(badLimit.status, 400);
    t.deepEqual(badLimit.body.error.details.map((d: any) => d.field), ["limit"]);
  }
});
