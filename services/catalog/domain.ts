// Wires the catalog service's domain modules together: the one place that says which
// module uses which. routes.ts gets the result. Each module runs its own SQL from db/
// on the pool given here.
import type { CatalogChangeNotifier } from "../../platform/catalog-changes.js";
import type { Sql } from "../../platform/db.js";
import type { Logger } from "../../platform/logger.js";
import type { Mailer } from "../../platform/mail.js";
import { createAccountMail } from "./accounts/account-mail.js";
import { createAudit } from "./accounts/audit.js";
import { createMemberSessions } from "./accounts/member-sessions.js";
import { createMembers } from "./accounts/members.js";
import { createPasswordResets } from "./accounts/password-resets.js";
import type { ScryptParams } from "./accounts/passwords.js";
import { createApiKeys } from "./api-keys.js";
import { createItems } from "./items.js";
import { createStores } from "./merchant-stores.js";
import { createStock } from "./stock.js";

export interface CatalogDomainDeps {
  /** The pool, on the catalog's schema: every table of db/ is there, accounts included. */
  sql: Sql;
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
  /** STOCK_CONFIRM_SECONDS: how long a new order's hold waits for its confirm (default 120). */
  stockConfirmSeconds?: number;
}

export function createCatalogDomain(deps: CatalogDomainDeps) {
  const { sql, logger } = deps;
  // Stores, plans, items, keys and settings write their audit entries into the accounts' audit_log, in the
  // transaction of the change (one schema, one pool: the same transaction).
  const stores = createStores({ sql, logger });
  const apiKeys = createApiKeys({ sql, stores, logger });
  const items = createItems({ sql, stores, changes: deps.catalogChanges, logger });
  const stock = createStock({ sql, items, confirmSeconds: deps.stockConfirmSeconds, logger });
  const { scryptParams } = deps;
  const sessions = createMemberSessions({ sql, scryptParams, logger });
  const mail = createAccountMail(deps.mail?.mailer ?? noMailer(logger), deps.mail?.publicBaseUrl ?? "");
  const members = createMembers({ sql, stores, sessions, mail, scryptParams, logger });
  const passwordResets = createPasswordResets({ sql, sessions, mail, scryptParams, logger });
  const audit = createAudit({ sql, stores });
  return { stores, apiKeys, items, stock, sessions, members, passwordResets, audit };
}

function noMailer(logger: Logger): Pick<Mailer, "send"> {
  return { send: (mail) => logger.error({ kind: mail.kind, to: mail.to, reason: "no mailer configured" }, "mail not delivered") };
}

export type CatalogDomain = ReturnType<typeof createCatalogDomain>;
