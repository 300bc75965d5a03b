// The catalog service on its own: `npm run start:catalog`.
import { listenAddress, loadConfig } from "../lib/config.js";
import { connectDb, openDatabaseServer } from "../lib/db.js";
import { onShutdown, reportProcessFailures } from "../lib/lifecycle.js";
import { createLogger } from "../lib/logger.js";
import { startServiceMetrics } from "../lib/metrics.js";
import { CATALOG_SCHEMA, startCatalogService } from "./service.js";

const config = loadConfig();
const logger = createLogger("catalog", config.LOG_LEVEL);
reportProcessFailures(logger);
const database = await openDatabaseServer(config, logger);
const sql = connectDb(database.url, { schema: CATALOG_SCHEMA });
const server = await startCatalogService({ sql, logger, ...listenAddress(config.CATALOG_ADDR) });
const metrics = await startServiceMetrics(listenAddress(config.CATALOG_ADDR), config.METRICS_PORT, logger);

onShutdown(logger, async () => {
  await metrics.close();
  await server.close();
  await sql.end({ timeout: 5 });
  await database.close();
});
