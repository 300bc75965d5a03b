// An order service killed between holding a new order's units and writing the order
// leaks nothing (docs/orders.md#stock): the catalog and order services are real
// processes; the order's insert is held back by a lock the test takes on the orders
// table, so the process is killed with the catalog's hold made and nothing written,
// and neither the order's confirm nor its at-once release ever comes. The catalog's
// sweep gives the units back once the hold's confirm time (1 s here) has passed.
import test from "ava";
import { ItemStatus, Plan } from "../../gen/catalog/v1/catalog_pb.js";
import { waitFor } from "../helpers/http.js";
import { SHARED_NATS_URL } from "../helpers/nats.js";
import { buyer, createServices } from "../helpers/service-processes.js";

test("the order service killed between reserving and writing: no order, and the units are available again after the sweep", async (t) => {
  const services = await createServices({ natsUrl: SHARED_NATS_URL, env: { STOCK_CONFIRM_SECONDS: "1" } });
  t.teardown(() => services.close());
  await services.spawn("catalog");
  const order = await services.spawn("order");
  const { store } = await services.stores.createStore({ name: "Killed Store", plan: Plan.GROWTH, bankAccount: { bankName: "BCA", bankCode: "014", accountNumber: "1234567890", accountHolder: "Budi" } });
  const storeId = store!.id;
  const { item } = await services.catalog.createProduct({ storeId, title: "Kopi", price: 25_000n, status: ItemStatus.PUBLISHED, stock: { quantity: 5n } });
  const available = async () => Number((await services.catalog.getItems({ storeId, ids: [item!.id] })).items[0]!.available);

  // The orders table locked: the order service can hold units but not write the order.
  let unlock!: () => void;
  const killed = new Promise<void>((resolve) => (unlock = resolve));
  let locked!: () => void;
  const isLocked = new Promise<void>((resolve) => (locked = resolve));
  const lock = services.sql.begin(async (tx) => {
    await tx`lock table orders.orders in exclusive mode`;
    locked();
    await killed;
  });
  await isLocked;
  const creating = services.orders
    .createOrder({ storeId, items: [{ ref: { case: "productId", value: item!.id }, quantity: 2 }], buyer, paymentMethod: "bank_transfer", requestHash: "" })
    .then(
      () => "created",
      () => "failed",
    );
  await waitFor(async () => (await available()) === 3, 20_000);

  await order.stop("SIGKILL");
  unlock();
  await lock;
  t.is(await creating, "failed", "the caller never got an order");
  const [written] = await services.sql<{ count: number }[]>`select count(*)::int as count from orders.orders where store_id = ${storeId}`;
  t.is(written!.count, 0, "nothing was written");
  t.notRegex(order.output(), /released/, "the killed process released nothing itself");

  // The sweep (every 5 s) releases the hold once it is 1 s past its confirm time.
  await waitFor(async () => (await available()) === 5, 30_000);
  t.is(await available(), 5);
});
