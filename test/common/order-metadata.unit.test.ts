// The metadata rules (docs/orders.md#metadata): bounds, the merge of a change (a null
// removes a key), and the 20-key limit judged on what the change leaves.
import test from "ava";
import { mergeMetadata, metadataChangeProblems, metadataPatch } from "../../common/order-metadata.js";
import { MAX_METADATA_KEYS } from "../../common/order-limits.js";

const keys = (n: number, prefix = "k") => Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, "v"]));

test("a PATCH body's null values are removals; the merge writes the rest over what is there", (t) => {
  const change = metadataPatch({ a: "2", b: null, c: "3" });
  t.deepEqual(change, { set: { a: "2", c: "3" }, remove: ["b"] });
  t.deepEqual(mergeMetadata({ a: "1", b: "1", d: "1" }, change.set, change.remove), { a: "2", c: "3", d: "1" });
  // Removing a key that is not there is nothing.
  t.deepEqual(mergeMetadata({}, {}, ["gone"]), {});
  t.deepEqual(metadataChangeProblems({}, {}, ["gone"]), []);
});

test("keys are 1 to 40 characters and values at most 500, counted as characters; each problem names metadata.<key>", (t) => {
  t.deepEqual(metadataChangeProblems({}, { ["k".repeat(40)]: "v".repeat(500), ["🙂".repeat(40)]: "😀".repeat(500) }, []), []);
  t.deepEqual(
    metadataChangeProblems({}, { ["k".repeat(41)]: "v", ok: "v".repeat(501), "": "x" }, []).map((p) => p.field),
    [`metadata.${"k".repeat(41)}`, "metadata.ok", "metadata"],
  );
  t.deepEqual(metadataChangeProblems({}, { note: "a\u0000b" }, []), [{ field: "metadata.note", message: "must not contain control characters" }]);
  t.deepEqual(metadataChangeProblems({}, { a: "1" }, ["a"]), [{ field: "metadata.a", message: "cannot be both set and removed" }]);
});

test("the 20-key limit applies to the metadata a change leaves: a full set takes a swap but not one more", (t) => {
  const full = keys(MAX_METADATA_KEYS);
  t.deepEqual(metadataChangeProblems({}, full, []), []);
  t.deepEqual(metadataChangeProblems(full, { k0: "changed" }, []), []);
  t.deepEqual(metadataChangeProblems(full, { extra: "v" }, ["k0"]), []);
  t.deepEqual(metadataChangeProblems(full, { extra: "v" }, []), [{ field: "metadata", message: "must have at most 20 keys (this change leaves 21)" }]);
  t.deepEqual(metadataChangeProblems({}, keys(21), []).map((p) => p.field), ["metadata"]);
});
