// The text rule on gRPC requests, field by field as protobuf holds them: plain
// strings, nested messages, oneof members and repeated fields, named by their proto
// field path. No server: the check itself.
import test from "ava";
import { create } from "@bufbuild/protobuf";
import { CreateOrderRequestSchema, HandlePaymentNotificationRequestSchema } from "../../gen/order/v1/order_pb.js";
import { findMessageTextViolation } from "../../platform/rpc-text.js";

const order = (overrides: Record<string, unknown> = {}) =>
  create(CreateOrderRequestSchema, {
    storeId: "s",
    items: [
      { ref: { case: "productId", value: "p1" }, quantity: 1 },
      { ref: { case: "bundleId", value: "b1" }, quantity: 2 },
    ],
    buyer: { name: "Budi", email: "budi@example.co.id", phone: "+628123456789" },
    paymentMethod: "qris",
    ...overrides,
  });

test("a clean request passes", (t) => {
  t.is(findMessageTextViolation(CreateOrderRequestSchema, order()), undefined);
});

test("a nested field, a oneof member in a list and an optional field are named by their proto path", (t) => {
  t.deepEqual(findMessageTextViolation(CreateOrderRequestSchema, order({ buyer: { name: "Bu\u0000di", email: "e", phone: "p" } })), {
    field: "buyer.name",
    message: "must not contain control characters",
  });
  const items = [
    { ref: { case: "productId", value: "p1" }, quantity: 1 },
    { ref: { case: "bundleId", value: "b\u007f1" }, quantity: 1 },
  ];
  t.is(findMessageTextViolation(CreateOrderRequestSchema, order({ items }))?.field, "items[1].bundle_id");
  t.is(findMessageTextViolation(CreateOrderRequestSchema, order({ externalId: "INV\u0001" }))?.field, "external_id");
});

test("bytes are not text: a notification body may hold any byte", (t) => {
  const message = create(HandlePaymentNotificationRequestSchema, { provider: "midtrans", body: new Uint8Array([0, 1, 127, 255]) });
  t.is(findMessageTextViolation(HandlePaymentNotificationRequestSchema, message), undefined);
});
