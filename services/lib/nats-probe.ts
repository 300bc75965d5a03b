import { connect, type NatsConnection } from "@nats-io/transport-node";

/**
 * A readiness check for NATS: one lazily opened connection, and a round trip to the
 * server (PING/PONG) on every check.
 */
export function createNatsProbe(url: string) {
  let connection: Promise<NatsConnection> | undefined;
  return {
    async check() {
      connection ??= connect({ servers: url, name: "store-order-readiness", maxReconnectAttempts: -1, timeout: 1_000 }).catch(
        (error) => {
          connection = undefined;
          throw error;
        },
      );
      const nc = await connection;
      await Promise.race([
        nc.flush(),
        new Promise((_, reject) => setTimeout(() => reject(new Error("no answer from NATS within 1 s")), 1_000).unref()),
      ]);
    },
    async close() {
      const nc = await connection?.catch(() => undefined);
      await nc?.close();
    },
  };
}
