import { createServiceClients } from "../../gateway/clients.js";
import { GATEWAY_SCHEMA, startGateway } from "../../gateway/service.js";
import { CATALOG_SCHEMA, startCatalogService } from "../../services/catalog/service.js";
import { ORDER_SCHEMA, startOrderService } from "../../services/order/service.js";
import { loadConfig } from "../../services/lib/config.js";
import { connectDb } from "../../services/lib/db.js";
import { createLogger } from "../../services/lib/logger.js";
import { freePort } from "../../services/lib/net.js";
import { createRpcChannel } from "../../services/lib/rpc-client.js";
import { CatalogService, ItemStatus, Plan, StoreService } from "../../gen/catalog/v1/catalog_pb.js";
import { OrderService } from "../../gen/order/v1/order_pb.js";
import { createTestDatabase, type TestDatabase } from "./db.js";

export interface StackOptions {
  ratePerMinute?: number;
  authFailuresPerMinute?: number;
  authCacheMs?: number;
  /** Extra configuration for the order service, as environment variables. */
  orderEnv?: Record<string, string>;
  /** How often the expiry sweeper runs (default 5 s). */
  sweepEveryMs?: number;
}

/**
 * The catalog and order services and the gateway in this process, on real loopback
 * ports and a database of their own: real HTTP, real gRPC, real PostgreSQL.
 */
export async function startStack(options: StackOptions = {}) {
  const db: TestDatabase = await createTestDatabase();
  const logger = createLogger("test", process.env.TEST_LOG_LEVEL ?? "silent");
  const catalogSql = connectDb(db.url, { schema: CATALOG_SCHEMA, max: 4 });
  const catalog = await startCatalogService({ sql: catalogSql, logger, host: "127.0.0.1", port: 0 });
  const catalogAddr = `http://127.0.0.1:${catalog.port}`;

  const gatewayPort = await freePort();
  const baseUrl = `http://127.0.0.1:${gatewayPort}`;
  const config = loadConfig({ ...options.orderEnv, CATALOG_ADDR: catalogAddr, PUBLIC_BASE_URL: baseUrl });
  const orderSql = connectDb(db.url, { schema: ORDER_SCHEMA, max: 8 });
  const order = await startOrderService({
    sql: orderSql,
    logger,
    config,
    host: "127.0.0.1",
    port: 0,
    sweepEveryMs: options.sweepEveryMs,
  });
  const orderAddr = `http://127.0.0.1:${order.port}`;

  const gatewaySql = connectDb(db.url, { schema: GATEWAY_SCHEMA, max: 4 });
  const clients = createServiceClients({ catalog: catalogAddr, order: orderAddr });
  const gateway = await startGateway({
    sql: gatewaySql,
    clients,
    logger,
    host: "127.0.0.1",
    port: gatewayPort,
    ratePerMinute: options.ratePerMinute ?? 10_000,
    authFailuresPerMinute: options.authFailuresPerMinute ?? 10_000,
    authCacheMs: options.authCacheMs,
    midtransServerKey: config.MIDTRANS_SERVER_KEY,
  });
  const admin = createRpcChannel(catalogAddr);
  const orderAdmin = createRpcChannel(orderAddr);
  return {
    db,
    baseUrl,
    catalogAddr,
    orderAddr,
    config,
    stores: admin.client(StoreService),
    catalog: admin.client(CatalogService),
    orders: orderAdmin.client(OrderService),
    /** SQL on the order service's schema, for asserting what was (not) written. */
    orderSql,
    async close() {
      admin.close();
      orderAdmin.close();
      await gateway.close();
      clients.close();
      await order.close(100);
      await catalog.close(100);
      await Promise.all([catalogSql.end({ timeout: 1 }), orderSql.end({ timeout: 1 }), gatewaySql.end({ timeout: 1 })]);
      await db.drop();
    },
  };
}

export type Stack = Awaited<ReturnType<typeof startStack>>;

/** A store with a live key (and a bank account unless `bank` is false). */
export async function createStore(stack: Pick<Stack, "stores">, plan: Plan = Plan.GROWTH, name = "Test Store", bank = true) {
  const { store } = await stack.stores.createStore({
    name,
    plan,
    bankAccount: bank
      ? { bankName: "Bank Central Asia", bankCode: "BCA", accountNumber: "0001112223", accountHolder: "Test Holder" }
      : undefined,
  });
  const key = await stack.stores.createApiKey({ storeId: store!.id, name: "test" });
  return { storeId: store!.id, keyId: key.apiKey!.id, key: key.secret };
}

export async function createProduct(
  stack: Pick<Stack, "catalog">,
  storeId: string,
  title: string,
  price: number,
  status: ItemStatus = ItemStatus.PUBLISHED,
) {
  const { item } = await stack.catalog.createProduct({ storeId, title, price: BigInt(price), status });
  return item!;
}

export async function createBundle(
  stack: Pick<Stack, "catalog">,
  storeId: string,
  title: string,
  price: number,
  productIds: string[],
  status: ItemStatus = ItemStatus.PUBLISHED,
) {
  const { item } = await stack.catalog.createBundle({ storeId, title, price: BigInt(price), status, productIds });
  return item!;
}

export const buyer = { name: "Budi Santoso", email: "budi@example.co.id", phone: "+6281234567890" };

export { ItemStatus, Plan };
