// Merchant stores and their plans (docs/api.md#plans): what a new store needs, the plan it
// gets when none is named, its settings (bank account, redirects; docs/dashboard.md#settings), and
// the lookup every store-scoped call starts with. Their SQL is in db/stores.ts.
import { Code, ConnectError } from "@connectrpc/connect";
import { Plan, type CreateStoreRequest, type UpdateStoreSettingsRequest } from "../../gen/catalog/v1/catalog_pb.js";
import { planName, type PlanName } from "../../common/plans.js";
import type { Actor } from "../../common/actor.js";
import { auditTarget } from "../../common/audit.js";
import { auditEntry, fieldChanges } from "../../platform/audit-log.js";
import { transaction, type Sql } from "../../platform/db.js";
import type { Logger } from "../../platform/logger.js";
import { insertAuditEntries } from "./db/audit.js";
import * as stores from "./db/stores.js";
import type { BuyerSettings, NewStore, StoreRow, StoreSettings } from "./db/stores.js";
import { isLanguage } from "../../common/i18n/index.js";
import { fieldError, optionalUrl, requireText, requireUuid } from "./validation.js";

/** A store created without a plan gets this one. */
export const DEFAULT_PLAN: PlanName = "growth";

/** The plan's name; INVALID_ARGUMENT for anything but starter, growth or scale. */
export function requirePlan(plan: Plan): PlanName {
  const name = planName(plan);
  if (!name) throw fieldError("plan", "must be starter, growth or scale");
  return name;
}

/**
 * A new store from a request: a name of 1–200 characters, the plan (DEFAULT_PLAN when
 * unspecified), and the settings storeSettingsFrom checks.
 */
export function newStoreFrom(request: Pick<CreateStoreRequest, "name" | "plan" | "bankAccount" | "redirects">): NewStore {
  const name = requireText(request.name, "name", 200);
  const plan = request.plan === Plan.UNSPECIFIED ? DEFAULT_PLAN : requirePlan(request.plan);
  return { name, plan, ...storeSettingsFrom(request) };
}

/**
 * A store's settings as CreateStore and UpdateStoreSettings take them: a bank account
 * of all four fields or none, and optional absolute http(s) redirect URLs.
 */
export function storeSettingsFrom(
  request: Pick<CreateStoreRequest, "bankAccount" | "redirects"> & Partial<Pick<UpdateStoreSettingsRequest, "emailBuyers" | "buyerLanguage">>,
): StoreSettings {
  const bank = request.bankAccount
    ? {
        bank_name: requireText(request.bankAccount.bankName, "bank_name", 100),
        bank_code: requireText(request.bankAccount.bankCode, "bank_code", 20),
        account_number: requireText(request.bankAccount.accountNumber, "account_number", 40),
        account_holder: requireText(request.bankAccount.accountHolder, "account_holder", 100),
      }
    : null;
  return {
    bank,
    redirects: {
      success_url: optionalUrl(request.redirects?.successUrl ?? "", "success_url"),
      return_url: optionalUrl(request.redirects?.returnUrl ?? "", "return_url"),
      error_url: optionalUrl(request.redirects?.errorUrl ?? "", "error_url"),
    },
    buyers: buyerSettingsFrom(request),
  };
}

/** "Email buyers" and "Buyer language" where the request gives them (docs/payments.md#buyer-mail). */
function buyerSettingsFrom(request: Partial<Pick<UpdateStoreSettingsRequest, "emailBuyers" | "buyerLanguage">>): BuyerSettings {
  const buyers: BuyerSettings = {};
  if (request.emailBuyers !== undefined) buyers.email_buyers = request.emailBuyers;
  if (request.buyerLanguage !== undefined) {
    if (!isLanguage(request.buyerLanguage)) throw fieldError("buyer_language", "must be id or en");
    buyers.buyer_language = request.buyerLanguage;
  }
  return buyers;
}

/** A store's settings as the audit log compares them, named as in the API; unset is "". */
export function auditedSettings(row: StoreRow): Record<string, string> {
  return {
    bank_name: row.bank_name ?? "",
    bank_code: row.bank_code ?? "",
    account_number: row.account_number ?? "",
    account_holder: row.account_holder ?? "",
    success_url: row.success_url ?? "",
    return_url: row.return_url ?? "",
    error_url: row.error_url ?? "",
    email_buyers: row.email_buyers ? "on" : "off",
    buyer_language: row.buyer_language,
  };
}

/** NOT_FOUND naming the store as the caller sent its id. */
export function storeNotFound(id: string): ConnectError {
  return new ConnectError(`store ${id} not found`, Code.NotFound);
}

export function createStores({ sql, logger }: { sql: Sql; logger: Logger }) {
  return {
    /** A new store; audited as `actor`, in the store's own first transaction. */
    async create(input: NewStore, actor: Actor): Promise<StoreRow> {
      const row = await transaction(sql, async (tx) => {
        const created = await stores.insertStore(tx, input);
        await insertAuditEntries(tx, [auditEntry(created.id, actor, "store.created", auditTarget("store", created.id), { label: created.name })]);
        return created;
      });
      logger.info({ storeId: row.id, plan: row.plan }, "store created");
      return row;
    },

    /** The store with this id: INVALID_ARGUMENT when it is not a UUID, NOT_FOUND when there is none. */
    async get(id: string): Promise<StoreRow> {
      const row = await stores.findStore(sql, requireUuid(id, "store_id"));
      if (!row) throw storeNotFound(id);
      return row;
    },

    /** Undefined when there is no such store. Audited as `actor`. */
    async setPlan(storeId: string, plan: PlanName, actor: Actor): Promise<StoreRow | undefined> {
      const row = await transaction(sql, async (tx) => {
        // Locked first, so the entry says which plan this change replaced.
        const before = await stores.findStore(tx, storeId, { forUpdate: true });
        if (!before) return undefined;
        const updated = (await stores.updateStorePlan(tx, storeId, plan))!;
        const changes = fieldChanges({ plan: before.plan }, { plan: updated.plan });
        await insertAuditEntries(tx, [auditEntry(updated.id, actor, "store.plan_changed", auditTarget("store", updated.id), { label: updated.name, changes })]);
        return updated;
      });
      if (row) logger.info({ storeId: row.id, plan }, "store plan changed");
      return row;
    },

    /** Replaces the bank account and redirect defaults; NOT_FOUND when there is no such store. Audited as `actor`. */
    async updateSettings(storeId: string, settings: StoreSettings, actor: Actor): Promise<StoreRow> {
      const row = await transaction(sql, async (tx) => {
        // Locked first, so the entry says what each changed field was (no setting is a secret).
        const before = await stores.findStore(tx, storeId, { forUpdate: true });
        if (!before) return undefined;
        const updated = (await stores.updateStoreSettings(tx, storeId, settings))!;
        const changes = fieldChanges(auditedSettings(before), auditedSettings(updated));
        await insertAuditEntries(tx, [auditEntry(updated.id, actor, "store.settings_changed", auditTarget("store", updated.id), { label: updated.name, changes })]);
        return updated;
      });
      if (!row) throw new ConnectError(`store ${storeId} not found`, Code.NotFound);
      logger.info({ storeId: row.id }, "store settings changed");
      return row;
    },
  };
}

export type Stores = ReturnType<typeof createStores>;
