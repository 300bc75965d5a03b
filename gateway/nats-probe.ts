import { connect, type NatsConnection } from "@nats-io/transport-node";

/**
 * A readiness check for NATS: one lazily opened connection, and a round trip to the
 * server (PING/PONG) on every check. Each way NATS can be away fails the check within
 * about a second, so /readyz names `nats`: never reached (the connect is refused or
 * times out), lost (the flush is refused while the client reconnects, or gets no PONG),
 * or closed for good (dropped here; the next check connects afresh).
 */
export function createNatsProbe(url: string) {
  let connection: Promise<NatsConnection> | undefined;
  let closing = false;
  return {
    async check() {
      if (closing) throw new Error("the readiness probe is closed");
      if (!connection) {
        const opening = connect({ servers: url, name: "store-order-readiness", maxReconnectAttempts: -1, timeout: 1_000 });
        connection = opening;
        opening.then(
          (nc) =>
            void nc.closed().then(() => {
              if (connection === opening) connection = undefined;
            }),
          () => {
            if (connection === opening) connection = undefined;
          },
        );
      }
      const nc = await connection;
      if (nc.isClosed()) throw new Error("the NATS connection is closed");
      await Promise.race([
        nc.flush(),
        new Promise((_, reject) => setTimeout(() => reject(new Error("no answer from NATS within 1 s")), 1_000).unref()),
      ]);
    },
    async close() {
      closing = true;
      const nc = await connection?.catch(() => undefined);
      await nc?.close();
    },
  };
}
