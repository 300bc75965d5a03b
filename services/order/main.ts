// The order service on its own: `npm run start:order`.
import { listenAddress, loadConfig } from "../lib/config.js";
import { connectDb, openDatabaseServer } from "../lib/db.js";
import { onShutdown } from "../lib/lifecycle.js";
import { createLogger } from "../lib/logger.js";
import { ORDER_SCHEMA, startOrderService } from "./service.js";

const config = loadConfig();
const logger = createLogger("order", config.LOG_LEVEL);
const database = await openDatabaseServer(config, logger);
const sql = connectDb(database.url, { schema: ORDER_SCHEMA });
const service = await startOrderService({ sql, logger, config, ...listenAddress(config.ORDER_ADDR) });

onShutdown(logger, async () => {
  await service.close();
  await sql.end({ timeout: 5 });
  await database.close();
});
