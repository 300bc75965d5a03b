// Payment links (docs/payments.md#payment-links). A link's paid and pending counts are
// read from the orders that carry its id, never stored (017_payment_links.sql).
import type postgres from "postgres";
import type { Db } from "../../../platform/db.js";

export interface LinkItem {
  product_id?: string;
  bundle_id?: string;
  quantity: number;
}

export interface PaymentLinkRow {
  id: string;
  store_id: string;
  slug: string;
  livemode: boolean;
  active: boolean;
  items: LinkItem[];
  payment_methods: string[];
  usage_limit: number | null;
  expires_at: Date | null;
  created_at: Date;
  deactivated_at: Date | null;
}

/** Orders that used the link up (paid, and kept so when refunded) and orders still waiting for payment. */
export interface LinkCounts {
  paid_count: number;
  pending_count: number;
}

export type CountedLink = PaymentLinkRow & LinkCounts;

// A pending order past its expiry no longer waits, as pendingWhere in orders.ts reads it.
const counted = (db: Db) => db`
  l.*,
  (select count(*) from orders o where o.payment_link_id = l.id and o.paid_at is not null)::int as paid_count,
  (select count(*) from orders o where o.payment_link_id = l.id and o.status = 'pending' and o.expires_at > statement_timestamp())::int as pending_count`;

export async function insertLink(db: Db, row: Omit<PaymentLinkRow, "created_at" | "deactivated_at" | "active">): Promise<CountedLink> {
  const [inserted] = await db<PaymentLinkRow[]>`
    insert into payment_links (id, store_id, slug, livemode, items, payment_methods, usage_limit, expires_at)
    values (${row.id}, ${row.store_id}, ${row.slug}, ${row.livemode}, ${db.json(row.items as unknown as postgres.JSONValue)},
      ${row.payment_methods}, ${row.usage_limit}, ${row.expires_at})
    returning *`;
  return { ...inserted!, paid_count: 0, pending_count: 0 };
}

/** The store's links of one mode, newest first. */
export async function listLinks(db: Db, storeId: string, livemode: boolean, limit: number): Promise<CountedLink[]> {
  return db<CountedLink[]>`
    select ${counted(db)} from payment_links l
    where l.store_id = ${storeId} and l.livemode = ${livemode}
    order by l.created_at desc, l.id limit ${limit}`;
}

/** The link at a public address, with its counts. */
export async function findLinkBySlug(db: Db, slug: string): Promise<CountedLink | undefined> {
  const [row] = await db<CountedLink[]>`select ${counted(db)} from payment_links l where l.slug = ${slug}`;
  return row;
}

/**
 * Locks the link for the rest of the transaction, which writes the order made through it,
 * so the next buyer waits and then counts this one's order. The lock is its own statement:
 * counts read in the statement that waited would be of the snapshot from before the wait.
 */
export async function lockLink(db: Db, id: string): Promise<void> {
  await db`select 1 from payment_links where id = ${id} for update`;
}

/**
 * Deactivates the store's link of that mode, locked, so two at once record one change;
 * `changed` is false when it was inactive already. Undefined when there is no such link.
 */
export async function deactivateLink(db: Db, storeId: string, id: string, livemode: boolean): Promise<(CountedLink & { changed: boolean }) | undefined> {
  const [before] = await db<{ active: boolean }[]>`
    select active from payment_links where id = ${id} and store_id = ${storeId} and livemode = ${livemode} for update`;
  if (!before) return undefined;
  const [row] = await db<CountedLink[]>`
    with d as (
      update payment_links set active = false, deactivated_at = coalesce(deactivated_at, clock_timestamp())
      where id = ${id}
      returning *
    )
    select ${counted(db)} from d l`;
  return { ...row!, changed: before.active };
}
