import { timestampDate } from "@bufbuild/protobuf/wkt";
import { planName } from "../common/plans.js";
import { ITEM_STATUSES, type ItemStatusName } from "../common/api-shapes.js";
import { catalogItemJson, itemStatusOf } from "../common/public-json.js";
import { ItemStatus, ItemType, type ApiKey, type Item, type Store } from "../gen/catalog/v1/catalog_pb.js";

// How the operator CLI prints catalog messages: snake_case JSON, amounts as numbers.

export { planFromName } from "../common/plans.js";

export const statusFromName = (name: string): ItemStatus | undefined =>
  (ITEM_STATUSES as readonly string[]).includes(name) ? itemStatusOf(name as ItemStatusName) : undefined;

export function storeJson(store: Store) {
  return {
    id: store.id,
    name: store.name,
    plan: planName(store.plan),
    bank_account: store.bankAccount
      ? {
          bank_name: store.bankAccount.bankName,
          bank_code: store.bankAccount.bankCode,
          account_number: store.bankAccount.accountNumber,
          account_holder: store.bankAccount.accountHolder,
        }
      : null,
    created_at: store.createdAt ? timestampDate(store.createdAt).toISOString() : null,
  };
}

export function apiKeyJson(key: ApiKey) {
  return {
    id: key.id,
    store_id: key.storeId,
    name: key.name,
    prefix: key.prefix,
    created_at: key.createdAt ? timestampDate(key.createdAt).toISOString() : null,
    revoked_at: key.revokedAt ? timestampDate(key.revokedAt).toISOString() : null,
  };
}

/** A key as `key list` shows it (docs/cli.md#commands): never the key, its hash or its store. */
export function apiKeyListJson(key: ApiKey) {
  const at = (value: ApiKey["createdAt"]) => (value ? timestampDate(value).toISOString() : null);
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    mode: key.livemode ? "live" : "test",
    scopes: key.scopes,
    // Who made it as the audit log names them; null for a key older than that record.
    created_by: key.createdBy || null,
    created_at: at(key.createdAt),
    last_used_at: at(key.lastUsedAt),
    revoked_at: at(key.revokedAt),
  };
}

/** An item as the API shows it (common/public-json.ts), with its store, and a bundle's product ids as before. */
export function itemJson(item: Item) {
  const { id, ...rest } = catalogItemJson(item);
  return { id, store_id: item.storeId, ...rest, ...(item.type === ItemType.BUNDLE ? { product_ids: item.productIds } : {}) };
}
