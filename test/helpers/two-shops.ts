// Two stores with one 15 000 product each, and a bank account to transfer to: the
// catalog the order service's bank and test-mode router tests price against, so a
// store's order and the other store's look alike except for whose they are.
import { create } from "@bufbuild/protobuf";
import type { OrderDomainDeps } from "../../services/order/domain.js";
import { GetOrderCatalogResponseSchema, GetStoreResponseSchema, ItemSchema, ItemStatus, ItemType } from "../../gen/catalog/v1/catalog_pb.js";

export const SHOP = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa";
export const OTHER = "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb";
/** SHOP's product, 15 000. */
export const KOPI = "11111111-1111-4111-8111-111111111111";
/** OTHER's product, 15 000. */
export const TEH = "22222222-2222-4222-8222-222222222222";

export const twoShopItems = [
  create(ItemSchema, { id: KOPI, storeId: SHOP, type: ItemType.PRODUCT, title: "Kopi", price: 15_000n, status: ItemStatus.PUBLISHED }),
  create(ItemSchema, { id: TEH, storeId: OTHER, type: ItemType.PRODUCT, title: "Teh", price: 15_000n, status: ItemStatus.PUBLISHED }),
];

export const bankAccount = { bankName: "BCA", bankCode: "014", accountNumber: "1234567890", accountHolder: "Budi" };

/** The catalog and store services as the order service asks them, answering from the two shops above. */
export const twoShopServices: Pick<OrderDomainDeps, "stores" | "catalog"> = {
  stores: { getStore: async ({ id }) => create(GetStoreResponseSchema, { store: { id, name: "Toko", bankAccount } }) },
  catalog: {
    getOrderCatalog: async ({ storeId, ids }) =>
      create(GetOrderCatalogResponseSchema, {
        store: { id: storeId, name: "Toko", bankAccount },
        items: twoShopItems.filter((item) => item.storeId === storeId && (ids ?? []).includes(item.id)),
      }),
  },
};
