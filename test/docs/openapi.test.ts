import test from "ava";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { api, waitFor } from "../helpers/http.js";
import { createOpenApiValidator } from "../helpers/openapi.js";
import { startReceiver } from "../helpers/receiver.js";
import { buyer, createBundle, createProduct, createStore, Plan, startStack, type Stack } from "../helpers/stack.js";

let stack: Stack;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const served = { document: undefined as any };

test.before(async () => {
  stack = await startStack({ webhooks: { bus: "in-process" } });
  receiver = await startReceiver();
  served.document = (await api(stack.baseUrl, "/v1/openapi.json")).body;
});
test.after.always(async () => {
  await receiver?.close();
  await stack?.close();
});

test("GET /v1/openapi.json needs no key and is OpenAPI 3.1 that passes the Redocly linter", async (t) => {
  const response = await api(stack.baseUrl, "/v1/openapi.json");
  t.is(response.status, 200);
  t.regex(response.headers.get("content-type") ?? "", /^application\/json/);
  t.is(response.body.openapi, "3.1.0");
  t.is(response.body.info.version, "1.0.0");
  const problems = await lintFromString({
    source: response.text,
    absoluteRef: "openapi.json",
    config: await createConfig({ extends: ["recommended"] }),
  });
  const errors = problems.filter((p) => p.severity === "error");
  t.deepEqual(
    errors.map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`),
    [],
  );
});

test("GET /docs renders the document with the viewer served from this server", async (t) => {
  const page = await api(stack.baseUrl, "/docs");
  t.is(page.status, 200);
  t.regex(page.headers.get("content-type") ?? "", /^text\/html/);
  t.regex(page.text, /\/docs\/assets\/swagger-ui-bundle\.js/);
  t.notRegex(page.text, /https?:\/\/(?!localhost)/, "no CDN");
  const script = await fetch(`${stack.baseUrl}/docs/assets/swagger-ui-bundle.js`);
  t.is(script.status, 200);
  t.true((await script.text()).length > 100_000);
  const init = await api(stack.baseUrl, "/docs/init.js");
  t.regex(init.text, /\/v1\/openapi\.json/);
  const outside = await api(stack.baseUrl, "/docs/assets/package.json");
  t.is(outside.status, 404);
});

test("every documented request example is accepted, and every response matches the document", async (t) => {
  const v = createOpenApiValidator(served.document);
  const check = (method: string, path: string, response: { status: number; body: unknown }) => {
    const problem = v.checkResponse(method, path, response.status, response.body);
    t.is(problem, undefined, `${method} ${path} → ${response.status}: ${problem}\n${JSON.stringify(response.body)}`);
  };

  const shop = await createStore(stack);
  const starter = await createStore(stack, Plan.STARTER, "Starter");
  await stack.webhooks!.setEndpoint({ storeId: shop.storeId, url: receiver.url });
  const a = await createProduct(stack, shop.storeId, "Kopi Arabika", 85_000);
  const b = await createProduct(stack, shop.storeId, "Gula Aren", 20_000);
  const bundle = await createBundle(stack, shop.storeId, "Paket", 100_000, [a.id, b.id]);
  const free = await createProduct(stack, shop.storeId, "Sticker", 0);
  const key = shop.key;

  check("GET", "/v1/products", await api(stack.baseUrl, "/v1/products?limit=2", { key }));
  check("GET", "/v1/payment-methods", await api(stack.baseUrl, "/v1/payment-methods", { key }));

  // The document's own examples, with this store's ids in place of the sample ones.
  const examples = v.resolve(served.document.paths["/v1/orders"].post.requestBody).content["application/json"].examples;
  const ids: Record<string, string> = {
    "32d96ce8-805d-4d60-acbc-e53a630e2019": a.id,
    "ff6f5be0-b61b-4400-a26c-a3f5f4c39863": bundle.id,
  };
  const orderIds: string[] = [];
  for (const [name, example] of Object.entries<any>(examples)) {
    const body = JSON.parse(JSON.stringify(example.value).replace(/[0-9a-f-]{36}/g, (id) => ids[id] ?? id));
    const created = await api(stack.baseUrl, "/v1/orders", { method: "POST", key, json: body });
    t.is(created.status, 201, `example ${name}: ${created.text}`);
    check("POST", "/v1/orders", created);
    orderIds.push(created.body.data.order.id);
  }
  // The catalog's examples too: made and changed through the API.
  const productIds: Record<string, string> = { "32d96ce8-805d-4d60-acbc-e53a630e2019": a.id, "5b0f3c0e-7a58-4d43-9a57-0a4fd8f1b6f2": b.id };
  const withIds = (value: unknown) => JSON.parse(JSON.stringify(value).replace(/[0-9a-f-]{36}/g, (id) => productIds[id] ?? id));
  const madeIds: string[] = [];
  for (const [name, example] of Object.entries<any>(v.resolve(served.document.paths["/v1/products"].post.requestBody).content["application/json"].examples)) {
    const made = await api(stack.baseUrl, "/v1/products", { method: "POST", key, json: withIds(example.value) });
    t.is(made.status, 201, `product example ${name}: ${made.text}`);
    madeIds.push(made.body.data.id);
  }
  for (const [name, example] of Object.entries<any>(v.resolve(served.document.paths["/v1/products/{product_id}"].patch.requestBody).content["application/json"].examples)) {
    const changed = await api(stack.baseUrl, `/v1/products/${madeIds[0]}`, { method: "PATCH", key, json: withIds(example.value) });
    t.is(changed.status, 200, `product change example ${name}: ${changed.text}`);
  }
  const freeOrder = await api(stack.baseUrl, "/v1/orders", { method: "POST", key, json: { items: [{ product_id: free.id, quantity: 1 }], buyer } });
  check("POST", "/v1/orders", freeOrder);
  t.is(freeOrder.body.data.payment.kind, "none");

  const replay = { method: "POST", key, json: { items: [{ product_id: b.id, quantity: 1 }], buyer, payment_method: "qris" }, headers: { "Idempotency-Key": "doc-1" } };
  check("POST", "/v1/orders", await api(stack.baseUrl, "/v1/orders", replay));
  const replayed = await api(stack.baseUrl, "/v1/orders", replay);
  t.is(replayed.headers.get("idempotent-replayed"), "true");
  check("POST", "/v1/orders", replayed);

  for (const id of orderIds) check("GET", "/v1/orders/{order_id}", await api(stack.baseUrl, `/v1/orders/${id}`, { key }));
  check("GET", "/v1/orders", await api(stack.baseUrl, "/v1/orders?limit=5", { key }));
  check("GET", "/v1/orders", await api(stack.baseUrl, "/v1/orders?status=paid", { key }));

  // Errors, each in the envelope the document describes.
  check("GET", "/v1/products", await api(stack.baseUrl, "/v1/products"));
  check("GET", "/v1/products", await api(stack.baseUrl, "/v1/products?limit=0", { key }));
  check("GET", "/v1/products", await api(stack.baseUrl, "/v1/products", { key: starter.key }));
  check("GET", "/v1/orders/{order_id}", await api(stack.baseUrl, "/v1/orders/00000000-0000-4000-8000-000000000000", { key }));
  const invalid = await api(stack.baseUrl, "/v1/orders", { method: "POST", key, json: { items: [], buyer } });
  t.is(invalid.status, 400);
  check("POST", "/v1/orders", invalid);
  const conflict = await api(stack.baseUrl, "/v1/orders", { ...replay, json: { ...replay.json, payment_method: "gopay" } });
  t.is(conflict.status, 409);
  check("POST", "/v1/orders", conflict);
  const tooBig = await api(stack.baseUrl, "/v1/orders", { method: "POST", key, headers: { "content-type": "application/json" }, body: `{"x":"${"a".repeat(70_000)}"}` });
  t.is(tooBig.status, 413);
  check("POST", "/v1/orders", tooBig);
  const notJson = await api(stack.baseUrl, "/v1/orders", { method: "POST", key, headers: { "content-type": "text/plain" }, body: "hello" });
  t.is(notJson.status, 415);
  check("POST", "/v1/orders", notJson);
  const badSignature = await api(stack.baseUrl, "/v1/payments/notifications/midtrans", {
    method: "POST",
    json: { order_id: "SO-NOPE1234", status_code: "200", gross_amount: "1000.00", signature_key: "00", transaction_status: "settlement" },
  });
  t.is(badSignature.status, 401);
  check("POST", "/v1/payments/notifications/midtrans", badSignature);

  // Refunds (docs/refunds.md): the documented examples against a bank-transfer order marked paid.
  const [transferOrderId] = orderIds;
  await stack.orders.markOrderPaid({ storeId: shop.storeId, orderId: transferOrderId! });
  const refundPath = `/v1/orders/${transferOrderId}/refunds`;
  const refundExamples = v.resolve(served.document.paths["/v1/orders/{order_id}/refunds"].post.requestBody).content["application/json"].examples;
  const refundReplay = { method: "POST", key, json: refundExamples.partial.value, headers: { "Idempotency-Key": "doc-refund-1" } };
  const refunded = await api(stack.baseUrl, refundPath, refundReplay);
  t.is(refunded.status, 201, refunded.text);
  check("POST", "/v1/orders/{order_id}/refunds", refunded);
  const refundReplayed = await api(stack.baseUrl, refundPath, refundReplay);
  t.is(refundReplayed.headers.get("idempotent-replayed"), "true");
  check("POST", "/v1/orders/{order_id}/refunds", refundReplayed);
  const refundConflict = await api(stack.baseUrl, refundPath, { ...refundReplay, json: { ...refundReplay.json, amount: 1 } });
  t.is(refundConflict.status, 409);
  check("POST", "/v1/orders/{order_id}/refunds", refundConflict);
  const rest = await api(stack.baseUrl, refundPath, { method: "POST", key, json: refundExamples.rest.value });
  t.is(rest.status, 201, rest.text);
  check("POST", "/v1/orders/{order_id}/refunds", rest);
  t.is(rest.body.data.order.status, "refunded");
  check("GET", "/v1/orders/{order_id}", await api(stack.baseUrl, `/v1/orders/${transferOrderId}`, { key }));
  const notRefundable = await api(stack.baseUrl, refundPath, { method: "POST", key, json: refundExamples.rest.value });
  t.is(notRefundable.status, 409);
  check("POST", "/v1/orders/{order_id}/refunds", notRefundable);
  const badRefund = await api(stack.baseUrl, refundPath, { method: "POST", key, json: { reason: "x", extra: 1 } });
  t.is(badRefund.status, 400);
  check("POST", "/v1/orders/{order_id}/refunds", badRefund);
  check("POST", "/v1/orders/{order_id}/refunds", await api(stack.baseUrl, "/v1/orders/00000000-0000-4000-8000-000000000000/refunds", { method: "POST", key, json: { reason: "x" } }));
  check("POST", "/v1/orders/{order_id}/refunds", await api(stack.baseUrl, refundPath, { method: "POST", key: starter.key, json: { reason: "x" } }));

  // Webhook bodies match the documented event schema, refund events included.
  await waitFor(() => receiver.events().filter((event: any) => event.type === "refund.succeeded").length >= 2 && receiver.events().some((event: any) => event.type === "order.refunded")).catch((error) => { t.log(receiver.events().map((event: any) => event.type)); throw error; });
  for (const event of receiver.events()) {
    const problem = v.checkSchema("WebhookEvent", event);
    t.is(problem, undefined, `${event.type}: ${problem}`);
  }
});

test("the test event a store sends itself is the document's webhook.test, and a WebhookEvent", async (t) => {
  const v = createOpenApiValidator(served.document);
  const shop = await createStore(stack);
  const { endpoint } = await stack.webhooks!.setEndpoint({ storeId: shop.storeId, url: receiver.url });
  await stack.webhooks!.sendTestEvent({ storeId: shop.storeId, endpointId: endpoint!.id });
  let event: any;
  await waitFor(() => (event = receiver.events().find((e: any) => e.type === "webhook.test" && e.data.store_id === shop.storeId)) !== undefined);
  t.deepEqual(event.data, { store_id: shop.storeId, endpoint_id: endpoint!.id, livemode: true });
  t.is(v.checkWebhook("webhook.test", event), undefined);
  t.is(v.checkSchema("WebhookEvent", event), undefined);
  t.not(v.checkWebhook("webhook.test", { ...event, data: { ...event.data, order: {} } }), undefined, "nothing more in data");
});

test("the documented rate and request-id headers are sent", async (t) => {
  const v = createOpenApiValidator(served.document);
  const shop = await createStore(stack);
  const response = await api(stack.baseUrl, "/v1/products", { key: shop.key });
  for (const header of v.documentedHeaders("GET", "/v1/products", 200)) {
    t.truthy(response.headers.get(header), header);
  }
});

test("POST /v1/orders/{order_id}/refunds is documented with its body, key, answers and events", (t) => {
  const document = served.document;
  const operation = document.paths["/v1/orders/{order_id}/refunds"]?.post;
  t.truthy(operation, "the refund operation is in the document");
  t.is(operation.operationId, "refundOrder");
  t.deepEqual(operation.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`), ["path:order_id", "header:Idempotency-Key"]);
  for (const status of ["201", "400", "401", "403", "404", "409", "429", "503"]) t.truthy(operation.responses[status], `documents ${status}`);
  t.truthy(operation.responses["201"].headers["Idempotent-Replayed"]);
  t.regex(operation.description, /pending/);
  t.regex(operation.description, /same refund key/);
  t.regex(operation.description, /manual/);

  const schemas = document.components.schemas;
  t.deepEqual(schemas.RefundOrderRequest.required, ["reason"]);
  t.false(schemas.RefundOrderRequest.additionalProperties);
  t.deepEqual(Object.keys(schemas.RefundOrderRequest.properties), ["amount", "reason", "reference", "restock"]);
  t.deepEqual(schemas.Refund.required, ["id", "amount", "reason", "reference", "status", "failure_message", "method", "created_at", "restock"]);
  t.regex(operation.description, /restock: true/);
  t.deepEqual(schemas.Refund.properties.status.enum, ["pending", "succeeded", "failed"]);
  t.deepEqual(schemas.Refund.properties.method.enum, ["gateway", "manual"]);
  t.true(schemas.Order.required.includes("refunded_amount") && schemas.Order.required.includes("refunds"));
  t.deepEqual(schemas.RefundEvent.properties.data.required, ["store_id", "order", "refund", "livemode"]);
  for (const type of ["refund.succeeded", "refund.failed"]) {
    t.truthy(document.webhooks[type], `${type} is a documented webhook`);
    t.deepEqual(document.webhooks[type].post.requestBody.content["application/json"].schema.allOf[0], { $ref: "#/components/schemas/RefundEvent" });
  }
  t.regex(document.info.description, /When the gateway is silent/);
  t.regex(document.info.description, /PAYMENT_STATUS_CHECK_AFTER/);
});
