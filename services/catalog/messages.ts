import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import {
  ApiKeySchema,
  ItemSchema,
  ItemStatus,
  ItemType,
  StoreSchema,
  type ApiKey,
  type Item,
  type Store,
} from "../../gen/catalog/v1/catalog_pb.js";
import { planFromName } from "../../common/plans.js";
import { itemAvailable } from "./availability.js";
import type { ApiKeyRow } from "./db/api-keys.js";
import type { ItemRow, ItemStatusName } from "./db/items.js";
import type { StoreRow } from "./db/stores.js";

// Rows ↔ protobuf messages: the one place the two vocabularies meet (the accounts' own
// are accounts/messages.ts).

export const itemStatusNames: Record<ItemStatusName, ItemStatus> = {
  draft: ItemStatus.DRAFT,
  published: ItemStatus.PUBLISHED,
  archived: ItemStatus.ARCHIVED,
};

export function itemStatusName(status: ItemStatus): ItemStatusName | undefined {
  return (Object.keys(itemStatusNames) as ItemStatusName[]).find((name) => itemStatusNames[name] === status);
}

export function storeMessage(row: StoreRow): Store {
  return create(StoreSchema, {
    id: row.id,
    name: row.name,
    plan: planFromName(row.plan),
    bankAccount:
      row.bank_name === null
        ? undefined
        : {
            bankName: row.bank_name,
            bankCode: row.bank_code ?? "",
            accountNumber: row.account_number ?? "",
            accountHolder: row.account_holder ?? "",
          },
    redirects: {
      successUrl: row.success_url ?? "",
      returnUrl: row.return_url ?? "",
      errorUrl: row.error_url ?? "",
    },
    createdAt: timestampFromDate(row.created_at),
  });
}

export function apiKeyMessage(row: ApiKeyRow): ApiKey {
  return create(ApiKeySchema, {
    id: row.id,
    storeId: row.store_id,
    name: row.name,
    prefix: row.prefix,
    scopes: row.scopes,
    livemode: row.livemode,
    createdBy: row.created_by ?? "",
    createdAt: timestampFromDate(row.created_at),
    revokedAt: row.revoked_at ? timestampFromDate(row.revoked_at) : undefined,
    lastUsedAt: row.last_used_at ? timestampFromDate(row.last_used_at) : undefined,
  });
}

/** Absent stands for "not tracked" / "nothing limits" (docs/catalog.md#stock). */
function optionalCount(value: number | null): bigint | undefined {
  return value === null ? undefined : BigInt(value);
}

export function itemMessage(row: ItemRow): Item {
  return create(ItemSchema, {
    id: row.id,
    storeId: row.store_id,
    type: row.type === "bundle" ? ItemType.BUNDLE : ItemType.PRODUCT,
    title: row.title,
    slug: row.slug,
    price: BigInt(row.price),
    status: itemStatusNames[row.status],
    productIds: row.product_ids,
    createdAt: timestampFromDate(row.created_at),
    stock: optionalCount(row.stock),
    available: optionalCount(itemAvailable(row)),
    bundleItems: row.bundle_items.map((line) => ({ productId: line.product_id, quantity: line.quantity })),
    updatedAt: timestampFromDate(row.updated_at),
  });
}
