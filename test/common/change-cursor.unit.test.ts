// The sync's cursor (docs/orders.md#syncing): opaque base64url that reads back as the
// position it was made from, and refuses anything else, an edited cursor above all.
import test from "ava";
import { changeCursor, parseChangeCursor } from "../../common/change-cursor.js";
import { parseChangeCursor as serviceParse } from "../../services/order/validation.js";
import { ConnectError } from "@connectrpc/connect";
import { fieldViolations } from "../../platform/field-errors.js";

const ID = "6e7a1e4b-07e2-4fdc-9500-86bab0f7de8b";

test("a cursor is base64url and reads back as its position (an id in any case reads lower-case)", (t) => {
  for (const xid of ["0", "8392", "18446744073709551615".slice(0, 19)]) {
    const cursor = changeCursor({ xid, id: ID });
    t.regex(cursor, /^[A-Za-z0-9_-]+$/);
    t.deepEqual(parseChangeCursor(cursor), { xid, id: ID });
  }
});

test("an edited, truncated or made-up cursor is refused; the service names the cursor field", (t) => {
  const cursor = changeCursor({ xid: "8392", id: ID });
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  const edited = [
    Buffer.from(text.replace("8392", "8393")).toString("base64url"),
    Buffer.from(text.replace(ID, ID.replace("6e7a", "6e7b"))).toString("base64url"),
    cursor.slice(0, -2),
    cursor + "A",
    Buffer.from("chg1.8392." + ID).toString("base64url"),
    Buffer.from(`chg1.08392.${ID}.x`).toString("base64url"),
    "not a cursor",
    "",
  ];
  for (const bad of edited) t.is(parseChangeCursor(bad), undefined, bad);
  const error = t.throws<ConnectError>(() => serviceParse(edited[0]!));
  t.deepEqual(fieldViolations(error).map((v) => v.field), ["cursor"]);
});
