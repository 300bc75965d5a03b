// "A store's catalog changed": the hint that lets gateways cache published catalog
// pages. The catalog service announces every write that can change what
// ListPublishedItems returns; each gateway drops that store's cached pages. It is a
// hint, not an event to keep: core NATS publish/subscribe, nothing stored, nothing
// acknowledged. A lost hint costs at most the cache's TTL of staleness
// (gateway/catalog-cache.ts), never a wrong price at order creation, which asks the
// catalog directly.
import { connect, type NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "./logger.js";

/** What a gateway does with the hints. */
export interface CatalogChangeListener {
  /** Something of this store's published catalog may have changed. */
  changed(storeId: string): void;
  /** Hints may have been missed (the bus was away): anything cached may be stale. */
  missed(): void;
}

/** The catalog service's end: announce a change. Never throws, never waits. */
export interface CatalogChangeNotifier {
  changed(storeId: string): void;
}

/** The gateway's end. Returns a function that stops listening. */
export interface CatalogChangeFeed {
  subscribe(listener: CatalogChangeListener): () => void;
}

export interface CatalogChanges extends CatalogChangeNotifier, CatalogChangeFeed {
  close(): Promise<void>;
}

/** The subject of a store's hints, under CATALOG_EVENTS_SUBJECT: `<base>.<store id>`. */
export function catalogChangeSubject(base: string, storeId: string): string {
  return `${base}.${storeId}`;
}

/** Every store's hints: what a gateway subscribes to. */
export function catalogChangeWildcard(base: string): string {
  return `${base}.*`;
}

/** The store id a hint's subject names, or undefined when it is not one of ours. */
export function storeOfSubject(base: string, subject: string): string | undefined {
  const prefix = `${base}.`;
  if (!subject.startsWith(prefix)) return undefined;
  const storeId = subject.slice(prefix.length);
  return storeId && !storeId.includes(".") ? storeId : undefined;
}

/**
 * One process's hints (`npm start`, the test stack): listeners run synchronously inside
 * `changed`, so by the time the catalog answers the write, this process's gateway has
 * dropped the pages, and a client that wrote and then reads sees its change.
 */
export function createLocalCatalogChanges(logger: Logger): CatalogChanges {
  const listeners = new Set<CatalogChangeListener>();
  return {
    changed(storeId) {
      for (const listener of listeners) {
        try {
          listener.changed(storeId);
        } catch (error) {
          logger.warn({ err: (error as Error).message, storeId }, "catalog change listener failed");
        }
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      listeners.clear();
    },
  };
}

/**
 * Core NATS. Connecting never holds up the caller: the catalog serves and the gateway
 * caches (on its TTL alone) while NATS is away. Only a process with listeners
 * subscribes, and after every (re)connection they hear `missed`, since hints sent
 * while this process was away are gone.
 */
export function connectCatalogChanges(url: string, subjectBase: string, logger: Logger): CatalogChanges & { ready(): Promise<void> } {
  const listeners = new Set<CatalogChangeListener>();
  let conn: NatsConnection | undefined;
  let subscribed: Promise<void> | undefined;
  let closing = false;
  let wake: (() => void) | undefined;
  let onConnected!: () => void;
  const connected = new Promise<void>((resolve) => (onConnected = resolve));

  const tell = (hear: (listener: CatalogChangeListener) => void) => {
    for (const listener of listeners) {
      try {
        hear(listener);
      } catch (error) {
        logger.warn({ err: (error as Error).message }, "catalog change listener failed");
      }
    }
  };

  const listen = (nc: NatsConnection) => {
    if (subscribed || listeners.size === 0) return;
    nc.subscribe(catalogChangeWildcard(subjectBase), {
      callback: (error, message) => {
        if (error) return;
        const storeId = storeOfSubject(subjectBase, message.subject);
        if (storeId) tell((listener) => listener.changed(storeId));
      },
    });
    // Once the server has the subscription (a round trip) no hint is missed any more,
    // so what was cached before it may go.
    subscribed = nc.flush().then(
      () => tell((listener) => listener.missed()),
      () => {},
    );
  };

  // Not untilAvailable: its back-off sleep would keep a closed process alive.
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      timer.unref();
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  void (async () => {
    let nc: NatsConnection | undefined;
    for (let attempt = 1; !closing && !nc; attempt++) {
      try {
        nc = await connect({ servers: url, name: "store-order-catalog-changes", maxReconnectAttempts: -1, reconnectTimeWait: 250, timeout: 2_000 });
      } catch (error) {
        const retryInMs = Math.min(5_000, 250 * 2 ** Math.min(attempt, 5));
        logger.warn({ dependency: "nats", attempt, retryInMs, reason: (error as Error).message }, "catalog changes: nats unreachable; retrying");
        await pause(retryInMs);
      }
    }
    if (!nc) return;
    if (closing) {
      await nc.close();
      return;
    }
    conn = nc;
    listen(nc);
    onConnected();
    for await (const status of nc.status()) {
      if (status.type !== "disconnect" && status.type !== "reconnect") continue;
      logger.info({ nats: status.type }, "catalog changes: nats connection");
      if (status.type === "reconnect") tell((listener) => listener.missed());
    }
  })().catch((error) => {
    if (!closing) logger.warn({ err: (error as Error).message }, "catalog changes: nats connection ended");
  });

  return {
    changed(storeId) {
      if (!conn) {
        // Gateways fall back on their TTL; a hint is not worth queueing.
        logger.warn({ storeId }, "catalog change not announced: nats not connected yet");
        return;
      }
      try {
        // Fire and forget: while reconnecting the client buffers it, and a hint lost
        // on the way costs only the TTL.
        conn.publish(catalogChangeSubject(subjectBase, storeId));
      } catch (error) {
        logger.warn({ err: (error as Error).message, storeId }, "catalog change not announced");
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      if (conn) listen(conn);
      return () => listeners.delete(listener);
    },
    /** Resolves once connected, and for a process with listeners, once subscribed. */
    async ready() {
      await connected;
      await subscribed;
    },
    async close() {
      closing = true;
      wake?.();
      listeners.clear();
      if (!conn) return;
      // A last hint still in the client's buffer goes out if NATS answers soon; a drain
      // would wait for a reconnection that may never come.
      await Promise.race([conn.flush(), new Promise((resolve) => setTimeout(resolve, 500).unref())]).catch(() => {});
      await conn.close().catch(() => {});
    },
  };
}

/** Several channels as one: announce on all, listen to all. */
export function combineCatalogChanges(...channels: CatalogChanges[]): CatalogChanges {
  return {
    changed(storeId) {
      for (const channel of channels) channel.changed(storeId);
    },
    subscribe(listener) {
      const stops = channels.map((channel) => channel.subscribe(listener));
      return () => stops.forEach((stop) => stop());
    },
    async close() {
      await Promise.all(channels.map((channel) => channel.close()));
    },
  };
}

/**
 * The channel a role uses: NATS when NATS_URL is set (so every gateway hears every
 * catalog instance), plus `local` when the catalog and gateway share this process.
 */
export function createCatalogChanges(
  config: { NATS_URL?: string; CATALOG_EVENTS_SUBJECT: string },
  logger: Logger,
  local?: CatalogChanges,
): CatalogChanges | undefined {
  const nats = config.NATS_URL ? connectCatalogChanges(config.NATS_URL, config.CATALOG_EVENTS_SUBJECT, logger) : undefined;
  if (nats && local) return combineCatalogChanges(local, nats);
  return nats ?? local;
}
