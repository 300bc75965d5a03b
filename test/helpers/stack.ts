import { createServiceClients } from "../../gateway/clients.js";
import { GATEWAY_SCHEMA, startGateway } from "../../gateway/service.js";
import { CATALOG_SCHEMA, startCatalogService } from "../../services/catalog/service.js";
import { connectDb } from "../../services/lib/db.js";
import { createLogger } from "../../services/lib/logger.js";
import { createRpcChannel } from "../../services/lib/rpc-client.js";
import { CatalogService, ItemStatus, Plan, StoreService } from "../../gen/catalog/v1/catalog_pb.js";
import { createTestDatabase, type TestDatabase } from "./db.js";

export interface StackOptions {
  ratePerMinute?: number;
  authFailuresPerMinute?: number;
  authCacheMs?: number;
}

/**
 * The catalog service and the gateway in this process, on real loopback ports and a
 * database of their own: real HTTP, real gRPC, real PostgreSQL.
 */
export async function startStack(options: StackOptions = {}) {
  const db: TestDatabase = await createTestDatabase();
  const logger = createLogger("test", process.env.TEST_LOG_LEVEL ?? "silent");
  const catalogSql = connectDb(db.url, { schema: CATALOG_SCHEMA, max: 4 });
  const catalog = await startCatalogService({ sql: catalogSql, logger, host: "127.0.0.1", port: 0 });
  const catalogAddr = `http://127.0.0.1:${catalog.port}`;
  const gatewaySql = connectDb(db.url, { schema: GATEWAY_SCHEMA, max: 4 });
  const clients = createServiceClients({ catalog: catalogAddr });
  const gateway = await startGateway({
    sql: gatewaySql,
    clients,
    logger,
    host: "127.0.0.1",
    port: 0,
    ratePerMinute: options.ratePerMinute ?? 10_000,
    authFailuresPerMinute: options.authFailuresPerMinute ?? 10_000,
    authCacheMs: options.authCacheMs,
  });
  const admin = createRpcChannel(catalogAddr);
  return {
    db,
    baseUrl: `http://127.0.0.1:${gateway.port}`,
    catalogAddr,
    stores: admin.client(StoreService),
    catalog: admin.client(CatalogService),
    async close() {
      admin.close();
      await gateway.close();
      clients.close();
      await catalog.close(100);
      await Promise.all([catalogSql.end({ timeout: 1 }), gatewaySql.end({ timeout: 1 })]);
      await db.drop();
    },
  };
}

export type Stack = Awaited<ReturnType<typeof startStack>>;

/** A store with a live key. */
export async function createStore(stack: Pick<Stack, "stores">, plan: Plan = Plan.GROWTH, name = "Test Store") {
  const { store } = await stack.stores.createStore({
    name,
    plan,
    bankAccount: { bankName: "Bank Central Asia", bankCode: "BCA", accountNumber: "0001112223", accountHolder: "Test Holder" },
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

export { ItemStatus, Plan };
