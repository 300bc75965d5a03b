// Where a sync of a store's orders stands (docs/orders.md#syncing): the transaction id of
// a change and the order's id, given to clients as an opaque cursor. Every change of an
// order is stamped with its transaction's id, and a page reads only changes of
// transactions that had ended, so a change that commits after a page was read still
// comes after that page's position. The order service makes and reads cursors; the
// gateway reads them only to refuse one that is not a cursor before asking.
import { createHash } from "node:crypto";
import { isUuid } from "./ids.js";

export interface ChangePosition {
  /** A transaction id (PostgreSQL xid8), in decimal. */
  xid: string;
  id: string;
}

const PREFIX = "chg1";

/** The order id before any other: a position after every order of the transaction before. */
export const FIRST_ID = "00000000-0000-0000-0000-000000000000";

/** The checksum of a cursor's text: an edited or truncated cursor is refused, not read as another position. */
function check(text: string): string {
  return createHash("sha256").update(text).digest("base64url").slice(0, 8);
}

/** A change cursor: base64url of "chg1.<xid>.<order id>.<check>". */
export function changeCursor(position: ChangePosition): string {
  const text = `${PREFIX}.${position.xid}.${position.id}`;
  return Buffer.from(`${text}.${check(text)}`, "utf8").toString("base64url");
}

/** Whether `cursor` claims to be a change cursor (its kind is read before it is checked). */
export function isChangeCursor(cursor: string): boolean {
  return cursor !== "" && Buffer.from(cursor, "base64url").toString("utf8").startsWith(`${PREFIX}.`);
}

/** The position a change cursor names; undefined for anything changeCursor did not make. */
export function parseChangeCursor(cursor: string): ChangePosition | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  const parts = Buffer.from(cursor, "base64url").toString("utf8").split(".");
  if (parts.length !== 4) return undefined;
  const [prefix, xid, id, sum] = parts as [string, string, string, string];
  const text = `${prefix}.${xid}.${id}`;
  // xid8 is an unsigned 64-bit number; 19 digits stay below its top.
  if (prefix !== PREFIX || !/^(0|[1-9][0-9]{0,18})$/.test(xid) || !isUuid(id) || sum !== check(text)) return undefined;
  return { xid, id: id.toLowerCase() };
}
