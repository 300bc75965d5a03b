import path from "node:path";
import { fileURLToPath } from "node:url";
import { AccountService } from "../../gen/catalog/v1/account_pb.js";
import { CatalogService, StoreService } from "../../gen/catalog/v1/catalog_pb.js";
import { migrate, ping, type Sql } from "../../platform/db.js";
import type { CatalogChangeNotifier } from "../../platform/catalog-changes.js";
import type { Logger } from "../../platform/logger.js";
import type { Mailer } from "../../platform/mail.js";
import { startRpcServer, type RpcServer } from "../../platform/rpc-server.js";
import { registerDbPool } from "../../platform/metrics.js";
import type { ScryptParams } from "./accounts/passwords.js";
import { createCatalogDomain } from "./domain.js";
import { createCatalogRoutes } from "./routes.js";
import { startStockSweep } from "./stock.js";

export const CATALOG_SCHEMA = "catalog";
const migrations = path.join(path.dirname(fileURLToPath(import.meta.url)), "migrations");

/**
 * Migrates the catalog schema and serves the catalog's gRPC API. `sql` must be a pool
 * whose search_path is the catalog schema (connectDb's `schema` option).
 */
export async function startCatalogService(options: {
  sql: Sql;
  logger: Logger;
  host: string;
  port: number;
  /** Where to announce catalog changes, so gateways can cache published pages. */
  catalogChanges?: CatalogChangeNotifier;
  /** Invitations and password resets go out through it, linking to `publicBaseUrl`'s dashboard. */
  mail?: { mailer: Pick<Mailer, "send">; publicBaseUrl: string };
  /** Password hashing cost; SCRYPT_PARAMS unless a test stack asks for less. */
  scryptParams?: ScryptParams;
  /** INTERNAL_TOKEN: every call to this service must carry it, and its own calls carry it. */
  internalToken?: string;
  /** STOCK_CONFIRM_SECONDS: how long a new order's stock hold waits for its confirm (default 120). */
  stockConfirmSeconds?: number;
  /** How often the sweep releases holds past their confirm time (default 5 s). */
  stockSweepEveryMs?: number;
}): Promise<RpcServer> {
  const { sql, logger } = options;
  await migrate(sql, CATALOG_SCHEMA, migrations, logger);
  registerDbPool("catalog", sql);
  const domain = createCatalogDomain({
    sql,
    logger,
    catalogChanges: options.catalogChanges,
    mail: options.mail,
    scryptParams: options.scryptParams,
    stockConfirmSeconds: options.stockConfirmSeconds,
  });
  const server = await startRpcServer({
    name: "catalog",
    host: options.host,
    port: options.port,
    logger,
    routes: createCatalogRoutes(domain),
    services: [StoreService.typeName, CatalogService.typeName, AccountService.typeName],
    ready: () => ping(sql),
    internalToken: options.internalToken,
  });
  // Every catalog instance sweeps (docs/catalog.md#stock): SKIP LOCKED keeps them apart.
  const sweep = startStockSweep({ stock: domain.stock, logger, everyMs: options.stockSweepEveryMs });
  return {
    ...server,
    async close(graceMs) {
      await sweep.stop();
      await server.close(graceMs);
    },
  };
}
