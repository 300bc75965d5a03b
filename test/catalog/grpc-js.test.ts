// A stock @grpc/grpc-js client, built at run time from the .proto files with
// @grpc/proto-loader, calls the catalog service: the promise of docs/architecture.md that any gRPC
// client, not only Connect, can talk to the internal services. It carries the internal
// token as metadata, as any caller must; without it nothing but health answers.
import path from "node:path";
import test from "ava";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { actorHeaders, OPERATOR } from "../../common/actor.js";
import { TEST_INTERNAL_TOKEN } from "../helpers/internal-token.js";
import { ROOT } from "../helpers/process.js";
import { startCatalogOnly } from "../helpers/stack.js";

const LOADER_OPTIONS: protoLoader.Options = {
  keepCase: false,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
  includeDirs: [path.join(ROOT, "proto")],
};

type Unary = (request: object, metadata: grpc.Metadata, callback: (error: grpc.ServiceError | null, response?: any) => void) => void;
type Client = grpc.Client & Record<string, Unary>;

let catalogService: Awaited<ReturnType<typeof startCatalogOnly>>;
let stores: Client;
let catalog: Client;
let health: Client;

/** `authorization` is the metadata's: the internal token by default, none when null. */
function call(client: Client, method: string, request: object, authorization: string | null = `Bearer ${TEST_INTERNAL_TOKEN}`): Promise<any> {
  return new Promise((resolve, reject) => {
    const fn = client[method];
    if (typeof fn !== "function") return reject(new Error(`no method ${method}`));
    // Who acts and the internal token travel as plain request metadata, which any gRPC
    // client can send (README, "Internal gRPC APIs").
    const metadata = new grpc.Metadata();
    for (const [name, value] of Object.entries(actorHeaders(OPERATOR))) metadata.set(name, value);
    if (authorization !== null) metadata.set("authorization", authorization);
    fn.call(client, request, metadata, (error, response) => (error ? reject(error) : resolve(response)));
  });
}

test.before(async () => {
  catalogService = await startCatalogOnly();
  const address = `127.0.0.1:${catalogService.port}`;
  const credentials = grpc.credentials.createInsecure();

  const definition = protoLoader.loadSync("catalog/v1/catalog.proto", LOADER_OPTIONS);
  const loaded = grpc.loadPackageDefinition(definition) as any;
  stores = new loaded.catalog.v1.StoreService(address, credentials);
  catalog = new loaded.catalog.v1.CatalogService(address, credentials);

  const healthDefinition = protoLoader.loadSync("grpc/health/v1/health.proto", LOADER_OPTIONS);
  const healthLoaded = grpc.loadPackageDefinition(healthDefinition) as any;
  health = new healthLoaded.grpc.health.v1.Health(address, credentials);
});

test.after.always(async () => {
  for (const client of [stores, catalog, health]) client?.close();
  await catalogService?.close();
});

test("CreateStore, CreateApiKey, CreateProduct, ListPublishedItems and AuthenticateApiKey answer correctly", async (t) => {
  const { store } = await call(stores, "CreateStore", {
    name: "Toko grpc-js",
    plan: "PLAN_GROWTH",
    bankAccount: { bankName: "Bank Mandiri", bankCode: "MANDIRI", accountNumber: "1230000001", accountHolder: "Siti" },
  });
  t.regex(store.id, /^[0-9a-f-]{36}$/);
  t.is(store.name, "Toko grpc-js");
  t.is(store.plan, "PLAN_GROWTH");
  t.deepEqual(store.bankAccount, {
    bankName: "Bank Mandiri",
    bankCode: "MANDIRI",
    accountNumber: "1230000001",
    accountHolder: "Siti",
  });
  t.true(Number(store.createdAt.seconds) > 1_600_000_000);

  const created = await call(stores, "CreateApiKey", { storeId: store.id, name: "grpc-js" });
  t.regex(created.secret, /^sk_live_[0-9A-Za-z]{32,}$/);
  t.is(created.apiKey.storeId, store.id);
  t.is(created.apiKey.name, "grpc-js");
  t.true(created.secret.startsWith(created.apiKey.prefix));
  t.true(created.apiKey.prefix.length < created.secret.length);

  const { item: first } = await call(catalog, "CreateProduct", {
    storeId: store.id,
    title: "Teh Melati 100g",
    price: "25000",
    status: "ITEM_STATUS_PUBLISHED",
  });
  t.like(first, {
    storeId: store.id,
    type: "ITEM_TYPE_PRODUCT",
    title: "Teh Melati 100g",
    slug: "teh-melati-100g",
    price: "25000",
    status: "ITEM_STATUS_PUBLISHED",
  });
  t.deepEqual(first.productIds, []);
  // A plain number works for an int64 field too; it comes back as a string (longs: String).
  const { item: second } = await call(catalog, "CreateProduct", {
    storeId: store.id,
    title: "Gula Aren",
    price: 12_500,
  });
  t.is(second.price, "12500");
  t.is(second.status, "ITEM_STATUS_PUBLISHED"); // unspecified status means published
  await call(catalog, "CreateProduct", { storeId: store.id, title: "Draft", price: "1", status: "ITEM_STATUS_DRAFT" });

  const page = await call(catalog, "ListPublishedItems", { storeId: store.id, limit: 1, offset: 0 });
  t.deepEqual(page.items.map((item: any) => item.id), [first.id]);
  t.true(page.hasMore);
  const rest = await call(catalog, "ListPublishedItems", { storeId: store.id, limit: 10, offset: 1 });
  t.deepEqual(rest.items.map((item: any) => item.id), [second.id]);
  t.false(rest.hasMore);

  const principal = await call(stores, "AuthenticateApiKey", { secret: created.secret });
  t.deepEqual(principal, { keyId: created.apiKey.id, storeId: store.id, plan: "PLAN_GROWTH", scopes: ["catalog:read", "catalog:write", "orders:read", "orders:write", "payments:write"], livemode: true });
});

test("an unknown key gets UNAUTHENTICATED", async (t) => {
  const error = await t.throwsAsync<grpc.ServiceError>(
    call(stores, "AuthenticateApiKey", { secret: "sk_live_" + "x".repeat(40) }),
  );
  t.is(error.code, grpc.status.UNAUTHENTICATED);
});

test("CreateProduct with a malformed store id gets INVALID_ARGUMENT", async (t) => {
  const error = await t.throwsAsync<grpc.ServiceError>(
    call(catalog, "CreateProduct", { storeId: "not-a-store", title: "X", price: "1000" }),
  );
  t.is(error.code, grpc.status.INVALID_ARGUMENT);
  t.is(error.code, 3);
  t.regex(error.details, /store_id/);
});

test("CreateProduct in a store that does not exist gets NOT_FOUND", async (t) => {
  const error = await t.throwsAsync<grpc.ServiceError>(
    call(catalog, "CreateProduct", { storeId: "00000000-0000-4000-8000-000000000000", title: "X", price: "1000" }),
  );
  t.is(error.code, grpc.status.NOT_FOUND);
});

test("the standard grpc.health.v1.Health/Check answers SERVING", async (t) => {
  t.deepEqual(await call(health, "Check", { service: "" }), { status: "SERVING" });
  t.deepEqual(await call(health, "Check", { service: "catalog.v1.StoreService" }), { status: "SERVING" });
  t.deepEqual(await call(health, "Check", { service: "catalog.v1.CatalogService" }), { status: "SERVING" });
  const error = await t.throwsAsync<grpc.ServiceError>(call(health, "Check", { service: "no.such.Service" }));
  t.is(error.code, grpc.status.NOT_FOUND);
});

test("without the internal token, or with another, a call stating x-actor: operator is UNAUTHENTICATED and changes nothing; health still answers", async (t) => {
  const storesNamed = async (name: string) => {
    const [row] = await catalogService.sql<{ n: number }[]>`select count(*)::int as n from stores where name = ${name}`;
    return row!.n;
  };
  for (const authorization of [null, "Bearer " + "A".repeat(43), `Bearer ${TEST_INTERNAL_TOKEN.slice(0, -1)}`]) {
    const error = await t.throwsAsync<grpc.ServiceError>(call(stores, "CreateStore", { name: "Toko Penyusup", plan: "PLAN_SCALE" }, authorization));
    t.is(error.code, grpc.status.UNAUTHENTICATED, String(authorization).slice(0, 10));
    t.regex(error.details, /INTERNAL_TOKEN/);
    t.deepEqual(error.metadata.get("www-authenticate"), ['Bearer realm="internal"']);
    const read = await t.throwsAsync<grpc.ServiceError>(call(catalog, "ListPublishedItems", { storeId: "00000000-0000-4000-8000-000000000000", limit: 1 }, authorization));
    t.is(read.code, grpc.status.UNAUTHENTICATED, "reads too");
  }
  t.is(await storesNamed("Toko Penyusup"), 0, "no store was made");
  // Probes send no metadata: the standard health service answers anyone.
  t.deepEqual(await call(health, "Check", { service: "" }, null), { status: "SERVING" });
  // The same call with the token does what it says.
  const { store } = await call(stores, "CreateStore", { name: "Toko Penyusup", plan: "PLAN_SCALE" });
  t.is(store.plan, "PLAN_SCALE");
  t.is(await storesNamed("Toko Penyusup"), 1);
});
