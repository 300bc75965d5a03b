// Which keys a dashboard search can match (services/order/order-search.ts).
import test from "ava";
import { searchFilter } from "../../services/order/order-search.js";

test("reference-shaped text is also looked up as a reference, upper-cased", (t) => {
  t.deepEqual(searchFilter("so-abcd2345wxyz"), { text: "so-abcd2345wxyz", reference: "SO-ABCD2345WXYZ" });
  t.deepEqual(searchFilter("SO-ABCD2345WXYZ"), { text: "SO-ABCD2345WXYZ", reference: "SO-ABCD2345WXYZ" });
  t.deepEqual(searchFilter("Inv-2024-0001"), { text: "Inv-2024-0001", reference: "INV-2024-0001" });
});

test("text that cannot be a reference is only an external id or an email", (t) => {
  t.deepEqual(searchFilter("budi@example.co.id"), { text: "budi@example.co.id" });
  t.deepEqual(searchFilter("short"), { text: "short" }, "under 8 characters");
  t.deepEqual(searchFilter("SO ABCD2345WXYZ"), { text: "SO ABCD2345WXYZ" });
  t.deepEqual(searchFilter(""), { text: "" });
});

test("only ASCII letters fold: a Unicode lookalike of a reference is not one", (t) => {
  // Full case mapping upper-cases dotless ı to I and ſ (long s) to S.
  t.is("ınv-2024-0001".toUpperCase(), "INV-2024-0001");
  t.deepEqual(searchFilter("ınv-2024-0001"), { text: "ınv-2024-0001" });
  t.deepEqual(searchFilter("ſo-abcd2345wxyz"), { text: "ſo-abcd2345wxyz" });
});
