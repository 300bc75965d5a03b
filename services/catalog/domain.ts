// Wires the catalog service's domain modules together: the one place that says which
// module uses which. routes.ts gets the result; tests pass in-memory stores.
import type { CatalogChangeNotifier } from "../../platform/catalog-changes.js";
import type { Logger } from "../../platform/logger.js";
import type { Mailer } from "../../platform/mail.js";
import { createAccountMail } from "./accounts/account-mail.js";
import * as accountSql from "./db/members.js";
import { createAudit } from "./accounts/audit.js";
import { createMemberSessions } from "./accounts/member-sessions.js";
import { createMembers } from "./accounts/members.js";
import { createPasswordResets } from "./accounts/password-resets.js";
import type { ScryptParams } from "./accounts/passwords.js";
import { createApiKeys } from "./api-keys.js";
import { createItems } from "./items.js";
import { createStores } from "./merchant-stores.js";
import * as sqlStore from "./db/items.js";

/** Everything store.ts offers (stores, API keys, items); a test may pass an in-memory one. */
export type CatalogStore = typeof sqlStore;
/** Everything accounts/account-store.ts offers (members, sessions, the audit log); likewise. */
export type AccountStore = typeof accountSql;

export interface CatalogDomainDeps {
  /** The pool; only `store` and `accountStore` use it. */
  sql: sqlStore.Pool;
  /** Default: store.ts (PostgreSQL). */
  store?: CatalogStore;
  /** Default: accounts/account-store.ts (PostgreSQL, the same pool). */
  accountStore?: AccountStore;
  logger: Logger;
  /** Hears every change of a store's published catalog (gateways drop cached pages). */
  catalogChanges?: CatalogChangeNotifier;
  /**
   * What passwords are hashed with, and older hashes upgraded to. Default: SCRYPT_PARAMS
   * (accounts/passwords.ts); only tests that hash hundreds of times pass cheaper ones.
   */
  scryptParams?: ScryptParams;
  /**
   * Invitations and password resets go out through it, with links under
   * `publicBaseUrl`. Default: none (each such mail is logged as not delivered), for
   * tests that do not read mail; every entry point passes one.
   */
  mail?: { mailer: Pick<Mailer, "send">; publicBaseUrl: string };
}

export function createCatalogDomain(deps: CatalogDomainDeps) {
  const { sql, logger } = deps;
  const store = deps.store ?? sqlStore;
  const accountStore = deps.accountStore ?? accountSql;
  // Stores, plans, items, keys and settings write their audit entries into the accounts' audit_log, in the
  // transaction of the change (one schema, one pool: the same transaction).
  const stores = createStores({ sql, store, audit: accountStore, logger });
  const apiKeys = createApiKeys({ sql, store, audit: accountStore, stores, logger });
  const items = createItems({ sql, store, audit: accountStore, stores, changes: deps.catalogChanges, logger });
  const { scryptParams } = deps;
  const sessions = createMemberSessions({ sql, store: accountStore, scryptParams, logger });
  const mail = createAccountMail(deps.mail?.mailer ?? noMailer(logger), deps.mail?.publicBaseUrl ?? "");
  const members = createMembers({ sql, store: accountStore, keys: store, stores, sessions, mail, scryptParams, logger });
  const passwordResets = createPasswordResets({ sql, store: accountStore, sessions, mail, scryptParams, logger });
  const audit = createAudit({ sql, store: accountStore, stores });
  return { stores, apiKeys, items, sessions, members, passwordResets, audit };
}

function noMailer(logger: Logger): Pick<Mailer, "send"> {
  return { send: (mail) => logger.error({ kind: mail.kind, to: mail.to, reason: "no mailer configured" }, "mail not delivered") };
}

export type CatalogDomain = ReturnType<typeof createCatalogDomain>;
