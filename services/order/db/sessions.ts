// Payment sessions: the gateway's checkout sessions of an order (payment-sessions.ts
// decides when one is made).
import type { Db } from "../../../platform/db.js";

export interface SessionRow {
  id: string;
  order_id: string;
  provider: string;
  token: string;
  redirect_url: string;
  expires_at: Date;
  created_at: Date;
}

export async function findSessionByToken(db: Db, token: string) {
  const [row] = await db<SessionRow[]>`select * from payment_sessions where token = ${token}`;
  return row;
}

/** The newest session of each order that has not expired. */
export async function liveSessionsOf(db: Db, orderIds: string[]): Promise<Map<string, SessionRow>> {
  const byOrder = new Map<string, SessionRow>();
  if (orderIds.length === 0) return byOrder;
  const rows = await db<SessionRow[]>`
    select distinct on (order_id) * from payment_sessions
    where order_id = any(${orderIds}::uuid[]) and expires_at > clock_timestamp()
    order by order_id, created_at desc`;
  for (const row of rows) byOrder.set(row.order_id, row);
  return byOrder;
}

export async function insertSession(db: Db, session: Omit<SessionRow, "id" | "created_at">): Promise<SessionRow> {
  const [row] = await db<SessionRow[]>`insert into payment_sessions ${db(session)} returning *`;
  return row!;
}
