// Every role in one process, wired by the same startAll as `npm start`, for
// `npm run bench -- --one-process`: `node --import tsx bench/one-process.ts in-process|grpc`
// with DATABASE_URL, NATS_URL and the ports in the environment. No demo store: the
// bench seeds its own. The argument picks how the roles call each other.
import { startAll } from "../cli/start-all.js";
import { loadConfig } from "../platform/config.js";
import { openDatabaseServer } from "../platform/db.js";
import { onShutdown, reportProcessFailures } from "../platform/lifecycle.js";
import { createLogger } from "../platform/logger.js";

const transport = process.argv[2];
if (transport !== "in-process" && transport !== "grpc") throw new Error(`usage: one-process.ts in-process|grpc (got ${transport})`);
const config = loadConfig();
const logger = createLogger("bench-one-process", config.LOG_LEVEL);
reportProcessFailures(logger);
const database = await openDatabaseServer(config, logger);
const all = await startAll(config, database.url, { transport });
onShutdown(logger, async () => {
  await all.close();
  await database.close();
});
// Logs are at warn during a bench run; the runner waits for the port, this is for people.
process.stdout.write(`one process (${all.transport}) listening on port ${all.gatewayPort}\n`);
