import type { Sql } from "../lib/db.js";

import type { PlanName } from "../../common/plans.js";

export type { PlanName };
export type ItemStatusName = "draft" | "published" | "archived";
export type ItemTypeName = "product" | "bundle";

export interface BankAccountRow {
  bank_name: string;
  bank_code: string;
  account_number: string;
  account_holder: string;
}

export interface StoreRow {
  id: string;
  name: string;
  plan: PlanName;
  bank_name: string | null;
  bank_code: string | null;
  account_number: string | null;
  account_holder: string | null;
  success_url: string | null;
  return_url: string | null;
  error_url: string | null;
  created_at: Date;
}

export interface ApiKeyRow {
  id: string;
  store_id: string;
  name: string;
  prefix: string;
  created_at: Date;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

export interface ItemRow {
  id: string;
  store_id: string;
  type: ItemTypeName;
  title: string;
  slug: string;
  price: number;
  status: ItemStatusName;
  product_ids: string[];
  created_at: Date;
}

export interface NewStore {
  name: string;
  plan: PlanName;
  bank: BankAccountRow | null;
  redirects: { success_url: string | null; return_url: string | null; error_url: string | null };
}

/** Data access of the catalog service: the only code that reads its tables. */
export function createCatalogStore(sql: Sql) {
  const itemColumns = sql`
    i.id, i.store_id, i.type, i.title, i.slug, i.price, i.status, i.created_at,
    coalesce(
      (select array_agg(b.product_id::text order by b.position) from bundle_products b where b.bundle_id = i.id),
      '{}'
    ) as product_ids`;

  return {
    async createStore(store: NewStore): Promise<StoreRow> {
      const [row] = await sql<StoreRow[]>`
        insert into stores ${sql({
          name: store.name,
          plan: store.plan,
          bank_name: store.bank?.bank_name ?? null,
          bank_code: store.bank?.bank_code ?? null,
          account_number: store.bank?.account_number ?? null,
          account_holder: store.bank?.account_holder ?? null,
          ...store.redirects,
        })}
        returning *`;
      return row!;
    },

    async getStore(id: string): Promise<StoreRow | undefined> {
      const [row] = await sql<StoreRow[]>`select * from stores where id = ${id}`;
      return row;
    },

    async setPlan(id: string, plan: PlanName): Promise<StoreRow | undefined> {
      const [row] = await sql<StoreRow[]>`
        update stores set plan = ${plan}, updated_at = clock_timestamp() where id = ${id} returning *`;
      return row;
    },

    async createApiKey(key: { store_id: string; name: string; prefix: string; key_hash: Buffer }): Promise<ApiKeyRow> {
      const [row] = await sql<ApiKeyRow[]>`
        insert into api_keys ${sql(key)}
        returning id, store_id, name, prefix, created_at, revoked_at, last_used_at`;
      return row!;
    },

    async revokeApiKey(storeId: string, keyId: string): Promise<ApiKeyRow | undefined> {
      const [row] = await sql<ApiKeyRow[]>`
        update api_keys set revoked_at = coalesce(revoked_at, clock_timestamp())
        where id = ${keyId} and store_id = ${storeId}
        returning id, store_id, name, prefix, created_at, revoked_at, last_used_at`;
      return row;
    },

    /**
     * The live key with this hash and its store's plan. `last_used_at` is refreshed at
     * most once a minute, so authentication stays a read on the hot path.
     */
    async authenticate(keyHash: Buffer): Promise<{ key_id: string; store_id: string; plan: PlanName } | undefined> {
      const [row] = await sql<{ key_id: string; store_id: string; plan: PlanName; stale: boolean }[]>`
        select k.id as key_id, k.store_id, s.plan,
               (k.last_used_at is null or k.last_used_at < now() - interval '1 minute') as stale
        from api_keys k join stores s on s.id = k.store_id
        where k.key_hash = ${keyHash} and k.revoked_at is null`;
      if (!row) return undefined;
      if (row.stale) await sql`update api_keys set last_used_at = now() where id = ${row.key_id}`;
      return { key_id: row.key_id, store_id: row.store_id, plan: row.plan };
    },

    async slugTaken(storeId: string, slug: string): Promise<boolean> {
      const [row] = await sql`select 1 from items where store_id = ${storeId} and slug = ${slug}`;
      return row !== undefined;
    },

    async createItem(item: {
      store_id: string;
      type: ItemTypeName;
      title: string;
      slug: string;
      price: number;
      status: ItemStatusName;
      product_ids: string[];
    }): Promise<ItemRow> {
      const { product_ids: productIds, ...columns } = item;
      const id = await sql.begin(async (tx) => {
        const [row] = await tx<{ id: string }[]>`insert into items ${tx(columns)} returning id`;
        for (const [position, productId] of productIds.entries()) {
          await tx`insert into bundle_products ${tx({ bundle_id: row!.id, product_id: productId, position })}`;
        }
        return row!.id;
      });
      return (await this.getItems(item.store_id, [id]))[0]!;
    },

    async updateItem(
      storeId: string,
      itemId: string,
      change: { price?: number; status?: ItemStatusName },
    ): Promise<ItemRow | undefined> {
      const [row] = await sql`
        update items set ${sql(change)}, updated_at = clock_timestamp()
        where id = ${itemId} and store_id = ${storeId} returning id`;
      if (!row) return undefined;
      return (await this.getItems(storeId, [itemId]))[0];
    },

    async getItems(storeId: string, ids: string[]): Promise<ItemRow[]> {
      if (ids.length === 0) return [];
      return sql<ItemRow[]>`
        select ${itemColumns} from items i
        where i.store_id = ${storeId} and i.id = any(${ids}::uuid[])`;
    },

    /** One row more than asked tells whether there is a next page. */
    async listPublished(storeId: string, limit: number, offset: number): Promise<{ items: ItemRow[]; hasMore: boolean }> {
      const rows = await sql<ItemRow[]>`
        select ${itemColumns} from items i
        where i.store_id = ${storeId} and i.status = 'published'
        order by i.created_at, i.id
        limit ${limit + 1} offset ${offset}`;
      return { items: rows.slice(0, limit), hasMore: rows.length > limit };
    },
  };
}

export type CatalogStore = ReturnType<typeof createCatalogStore>;
