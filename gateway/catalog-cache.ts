// Published catalog pages, kept by the gateway: they change rarely and are read on
// every storefront visit, and each read otherwise crosses the gRPC hop and PostgreSQL.
// The catalog service announces every change of a store's published items
// (platform/catalog-changes.ts) and the store's pages are dropped here at once;
// the TTL bounds staleness when a hint is lost or the bus is away. Orders never price
// from here: the order service asks the catalog itself.
import type { CatalogChangeListener } from "../platform/catalog-changes.js";

/**
 * How long a page may be served without asking the catalog again: the worst-case
 * staleness when a change hint never arrives (NATS away, a message lost). With hints
 * arriving, changes show within milliseconds.
 */
export const CATALOG_PAGE_TTL_MS = 5_000;
/**
 * A page read in its last second is read again in the background while the cached one
 * is still served, so a busy page never makes every waiting request sit out a catalog
 * call (or share its failure) when it expires.
 */
export const CATALOG_PAGE_REFRESH_AHEAD_MS = 1_000;
/** Pages kept at most, over all stores (least recently read go first). */
export const CATALOG_CACHE_MAX_PAGES = 10_000;
/** Bytes of cached answers kept at most: a 50-item page is ~10 KiB, so ~1,600 of those. */
export const CATALOG_CACHE_MAX_BYTES = 16 * 1024 * 1024;
// What a cached entry costs beyond its body: the key twice, the entry, map slots.
const ENTRY_OVERHEAD_BYTES = 256;

export interface CatalogPageCacheOptions {
  ttlMs?: number;
  refreshAheadMs?: number;
  maxPages?: number;
  maxBytes?: number;
  now?: () => number;
}

interface Entry {
  storeId: string;
  key: string;
  body: Buffer;
  size: number;
  expiresAt: number;
}

/** A read of the catalog in progress; `current` turns false if the store changed meanwhile. */
interface Flight {
  storeId: string;
  current: boolean;
  body: Promise<Buffer>;
}

export function createCatalogPageCache(options: CatalogPageCacheOptions = {}) {
  const ttlMs = options.ttlMs ?? CATALOG_PAGE_TTL_MS;
  const refreshAheadMs = Math.min(options.refreshAheadMs ?? CATALOG_PAGE_REFRESH_AHEAD_MS, ttlMs / 2);
  const maxPages = options.maxPages ?? CATALOG_CACHE_MAX_PAGES;
  const maxBytes = options.maxBytes ?? CATALOG_CACHE_MAX_BYTES;
  const now = options.now ?? Date.now;

  // A Map iterates in insertion order: re-inserting on every hit makes the first entry
  // the least recently read.
  const entries = new Map<string, Entry>();
  const keysByStore = new Map<string, Set<string>>();
  const flights = new Map<string, Flight>();
  let bytes = 0;

  function remove(entry: Entry): void {
    entries.delete(entry.key);
    bytes -= entry.size;
    const keys = keysByStore.get(entry.storeId);
    keys?.delete(entry.key);
    if (keys?.size === 0) keysByStore.delete(entry.storeId);
  }

  function put(storeId: string, key: string, body: Buffer, expiresAt: number): void {
    const size = body.length + ENTRY_OVERHEAD_BYTES;
    if (size > maxBytes) return;
    const old = entries.get(key);
    if (old) remove(old);
    entries.set(key, { storeId, key, body, size, expiresAt });
    bytes += size;
    let keys = keysByStore.get(storeId);
    if (!keys) keysByStore.set(storeId, (keys = new Set()));
    keys.add(key);
    for (const oldest of entries.values()) {
      if (entries.size <= maxPages && bytes <= maxBytes) break;
      remove(oldest);
    }
  }

  function dropStore(storeId: string): void {
    for (const key of keysByStore.get(storeId) ?? []) {
      const entry = entries.get(key);
      if (entry) remove(entry);
    }
    // A read already under way may have seen the catalog before the change: its
    // answer goes to the requests waiting on it but is not kept, and later requests
    // start a read of their own.
    for (const [key, flight] of flights) {
      if (flight.storeId !== storeId) continue;
      flight.current = false;
      flights.delete(key);
    }
  }

  function dropAll(): void {
    entries.clear();
    keysByStore.clear();
    bytes = 0;
    for (const flight of flights.values()) flight.current = false;
    flights.clear();
  }

  /** One read of the catalog for `key`, shared by every request that comes while it runs. */
  function read(storeId: string, key: string, at: number, load: () => Promise<Buffer>): Promise<Buffer> {
    const flight: Flight = { storeId, current: true, body: undefined as unknown as Promise<Buffer> };
    // The TTL counts from before the read: the answer is at least that old.
    flight.body = (async () => load())()
      .then((body) => {
        if (flight.current) put(storeId, key, body, at + ttlMs);
        return body;
      })
      .finally(() => {
        if (flights.get(key) === flight) flights.delete(key);
      });
    flights.set(key, flight);
    return flight.body;
  }

  const listener: CatalogChangeListener = { changed: dropStore, missed: dropAll };

  return {
    ...listener,

    /**
     * The page's answer: from the cache while fresh, else from `load`. Concurrent
     * misses of one page share one load; a failed load is not kept.
     */
    page(storeId: string, limit: number, offset: number, load: () => Promise<Buffer>): Promise<Buffer> {
      const key = `${storeId}/${limit}/${offset}`;
      const at = now();
      const hit = entries.get(key);
      if (hit) {
        if (hit.expiresAt > at) {
          entries.delete(key);
          entries.set(key, hit);
          if (hit.expiresAt - at <= refreshAheadMs && !flights.has(key)) {
            // A failed refresh leaves the page to expire; the request after that tries again.
            read(storeId, key, at, load).catch(() => {});
          }
          return Promise.resolve(hit.body);
        }
        remove(hit);
      }
      return flights.get(key)?.body ?? read(storeId, key, at, load);
    },

    /** What is held now (for tests and diagnostics). */
    stats(): { pages: number; bytes: number; stores: number } {
      return { pages: entries.size, bytes, stores: keysByStore.size };
    },
  };
}

export type CatalogPageCache = ReturnType<typeof createCatalogPageCache>;
