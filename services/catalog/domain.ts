// Wires the catalog service's domain modules together: the one place that says which
// module uses which. routes.ts gets the result; tests pass an in-memory store.
import type { CatalogChangeNotifier } from "../lib/catalog-changes.js";
import type { Logger } from "../lib/logger.js";
import { createApiKeys } from "./api-keys.js";
import { createAudit } from "./audit.js";
import { createItems } from "./items.js";
import { createMembers } from "./members.js";
import { createSessions } from "./sessions.js";
import { createStores } from "./stores.js";
import * as sqlStore from "./store.js";

/** Everything store.ts offers; a test may pass an in-memory one. */
export type CatalogStore = typeof sqlStore;

export interface CatalogDomainDeps {
  /** The pool; only `store` uses it. */
  sql: sqlStore.Pool;
  /** Default: store.ts (PostgreSQL). */
  store?: CatalogStore;
  logger: Logger;
  /** Hears every change of a store's published catalog (gateways drop cached pages). */
  catalogChanges?: CatalogChangeNotifier;
}

export function createCatalogDomain(deps: CatalogDomainDeps) {
  const { sql, logger } = deps;
  const store = deps.store ?? sqlStore;
  const stores = createStores({ sql, store, logger });
  const apiKeys = createApiKeys({ sql, store, stores, logger });
  const items = createItems({ sql, store, stores, changes: deps.catalogChanges, logger });
  const sessions = createSessions({ sql, store, logger });
  const members = createMembers({ sql, store, stores, sessions, logger });
  const audit = createAudit({ sql, store, stores });
  return { stores, apiKeys, items, sessions, members, audit };
}

export type CatalogDomain = ReturnType<typeof createCatalogDomain>;
