import { randomUUID } from "node:crypto";
import http from "node:http";
import type { Duplex } from "node:stream";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { migrate, type Sql } from "../platform/db.js";
import type { Logger } from "../platform/logger.js";
import { gatewayUrl } from "../platform/gateway-address.js";
import { createGatewayApp, type GatewayDeps } from "./app.js";

export const GATEWAY_SCHEMA = "gateway";
const migrations = path.join(path.dirname(fileURLToPath(import.meta.url)), "migrations");

export interface Gateway {
  port: number;
  close(): Promise<void>;
}

/** Migrates the gateway's own schema (rate buckets) and serves HTTP. */
export async function startGateway(
  options: Omit<GatewayDeps, "sql" | "selfUrl"> & { sql: Sql; host: string; port: number },
): Promise<Gateway> {
  await migrate(options.sql, GATEWAY_SCHEMA, migrations, options.logger);
  let selfUrl: string | undefined;
  const app = createGatewayApp({ ...options, selfUrl: () => selfUrl });
  // An HTTP/1.1 request without Host is answered by the app (Node's own 400 carries no
  // envelope); nothing here routes by Host.
  // eslint-disable-next-line @typescript-eslint/no-misused-promises -- Koa's callback settles each request's failure itself (ctx.onerror); its promise never rejects
  const server = http.createServer({ requireHostHeader: false }, app.callback());
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 30_000;
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => answerClientError(error, socket, options.logger));
  // CONNECT (a proxy tunnel request) never reaches the app: refuse it in the envelope.
  server.on("connect", (_request: http.IncomingMessage, socket: Duplex) => {
    writeRawError(socket, 405, "CONNECT is not allowed here", "METHOD_NOT_ALLOWED", options.logger, "CONNECT");
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : options.port;
  selfUrl = gatewayUrl({ HOST: options.host, PORT: port });
  options.logger.info({ address: `http://${options.host}:${port}` }, "gateway listening");
  return {
    port,
    async close() {
      // Stop accepting; idle keep-alive sockets go now, busy ones once they answer.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const timer = setTimeout(() => server.closeAllConnections(), 8_000);
      await closed;
      clearTimeout(timer);
    },
  };
}

/**
 * What Node's HTTP parser refuses never reaches Koa: answer it here, in the envelope,
 * when the socket still takes an answer (docs/api.md#robustness). A reset or a timed-out socket
 * gets none, as nobody would read it.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex, logger: Logger): void {
  const code = error.code ?? "";
  // A request already handed to the app whose body then broke (a bad chunk size, say)
  // still has its answer to give, if nothing was sent yet; the app's own later write
  // then finds the socket closed.
  const inFlight = (socket as { _httpMessage?: http.ServerResponse })._httpMessage;
  if (code === "ECONNRESET" || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const tooLarge = code === "HPE_HEADER_OVERFLOW";
  const timedOut = code === "ERR_HTTP_REQUEST_TIMEOUT";
  const status = tooLarge ? 431 : timedOut ? 408 : 400;
  const message = tooLarge ? "request headers are too large" : timedOut ? "request timed out" : "malformed HTTP request";
  writeRawError(socket, status, message, "INVALID_REQUEST", logger, code || error.message);
}

/** An envelope written straight to a socket Koa will not answer on, then closed. */
function writeRawError(socket: Duplex, status: number, message: string, code: string, logger: Logger, reason: string): void {
  const requestId = randomUUID();
  const body = JSON.stringify({ success: false, error: { code, message } });
  logger.info({ requestId, status, reason }, "malformed request refused");
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\n` +
      "Content-Type: application/json; charset=utf-8\r\n" +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${requestId}\r\n` +
      (status === 405 ? "Allow: GET, POST\r\n" : "") +
      "Connection: close\r\n\r\n" +
      body,
  );
}

// Kept here too for the modules that import it from the gateway.
export { loopbackHost } from "../platform/gateway-address.js";
