import { ItemStatus, Plan, type CatalogService, type StoreService } from "../gen/catalog/v1/catalog_pb.js";
import type { Client } from "@connectrpc/connect";

export interface DemoStore {
  store_id: string;
  key_id: string;
  key: string;
  product_ids: string[];
  bundle_id: string;
}

/**
 * A Growth store with a bank account, three products, a bundle and an API key. The
 * catalog audits each change with the actor the clients state (the operator's).
 */
export async function seedDemoStore(clients: {
  store: Client<typeof StoreService>;
  catalog: Client<typeof CatalogService>;
}): Promise<DemoStore> {
  const { store } = await clients.store.createStore({
    name: "Toko Kopi Nusantara",
    plan: Plan.GROWTH,
    bankAccount: {
      bankName: "Bank Central Asia",
      bankCode: "BCA",
      accountNumber: "1234567890",
      accountHolder: "PT Kopi Nusantara",
    },
  });
  const storeId = store!.id;
  const products = [];
  for (const [title, price] of [
    ["Kopi Arabika Gayo 250g", 85_000n],
    ["Kopi Robusta Lampung 250g", 65_000n],
    ["French Press 350ml", 150_000n],
  ] as const) {
    const { item } = await clients.catalog.createProduct({ storeId, title, price, status: ItemStatus.PUBLISHED });
    products.push(item!.id);
  }
  const { item: bundle } = await clients.catalog.createBundle({
    storeId,
    title: "Paket Seduh Pagi",
    price: 200_000n,
    status: ItemStatus.PUBLISHED,
    productIds: [products[0]!, products[2]!],
  });
  const key = await clients.store.createApiKey({ storeId, name: "demo" });
  return { store_id: storeId, key_id: key.apiKey!.id, key: key.secret, product_ids: products, bundle_id: bundle!.id };
}
