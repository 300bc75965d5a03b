// The order service on a database of the test's own (template-db.ts), and its tables as
// a test reads them: what a change wrote is asserted on the rows the SQL wrote, not on
// an imitation of them.
import type { ExecutionContext } from "ava";
import type { Sql } from "../../platform/db.js";
import { hookQueries } from "../../platform/sql-hooks.js";
import type { OrderRow } from "../../services/order/db/orders.js";
import { ORDER_SCHEMA } from "../../services/order/service.js";
import { migratedDatabase } from "./template-db.js";

export interface OrderHistoryEntry {
  order_id: string;
  from_status: string | null;
  to_status: string;
  cause: string;
}

export interface OutboxEntry {
  order_id: string;
  event_type: string;
  payload: unknown;
}

export interface OrderTables {
  /** The pool the order domain runs on; each statement it sends is in `statements`. */
  sql: Sql;
  /** The text of every statement sent on `sql` (placeholders, no values), as each settled. */
  statements: string[];
  /** Another pool on the same database, whose statements are not in `statements`. */
  direct: Sql;
  /** Outbox rows as written, oldest first; only the order's with `orderId`. */
  outbox(orderId?: string): Promise<OutboxEntry[]>;
  /** Status history rows as written, oldest first. */
  history(orderId?: string): Promise<OrderHistoryEntry[]>;
  order(id: string): Promise<OrderRow | undefined>;
  count(table: "orders" | "outbox" | "refunds" | "bank_mutations" | "audit_log"): Promise<number>;
}

/** A migrated database for the order service, dropped when the test ends. */
export async function orderTables(t: ExecutionContext): Promise<OrderTables> {
  const db = await migratedDatabase(t);
  const statements: string[] = [];
  // A transaction and reads beside it, as a request and a sweeper can have.
  const sql = hookQueries(db.pool(ORDER_SCHEMA, 3), { sent: (query) => () => void statements.push(query.string ?? query.strings.join("?")) });
  const direct = db.pool(ORDER_SCHEMA, 2);
  return {
    sql,
    statements,
    direct,
    // Oldest first. Rows written by one statement can share a created_at to the
    // microsecond; a test's own table only grows, so its physical order (ctid) is the
    // order they were written in. Spread into plain arrays: a postgres.js result is an
    // Array of its own class, which deepEqual tells apart.
    outbox: async (orderId) => [
      ...(await direct<OutboxEntry[]>`
      select order_id, event_type, payload from outbox
      ${orderId ? direct`where order_id = ${orderId}` : direct``}
      order by created_at, ctid`),
    ],
    history: async (orderId) => [
      ...(await direct<OrderHistoryEntry[]>`
      select order_id, from_status, to_status, cause from order_status_history
      ${orderId ? direct`where order_id = ${orderId}` : direct``}
      order by id`),
    ],
    order: async (id) => (await direct<OrderRow[]>`select * from orders where id = ${id}`)[0],
    count: async (table) => (await direct<{ count: number }[]>`select count(*)::int as count from ${direct(table)}`)[0]!.count,
  };
}
