// Which address takes the next call (lean-grpc/rotation.ts): round robin, an address
// that refused a connection or sent GOAWAY left out for a growing backoff, and the set
// following what each resolution says. A clock of the test's own; no sockets.
import test from "ava";
import { AddressRotation, defaultBackoffMs } from "../../lean-grpc/rotation.js";

function rotation(addresses: string[]) {
  const clock = { now: 0 };
  const made = new AddressRotation({ now: () => clock.now });
  made.update(addresses);
  const picks = (n: number, avoid?: string) => Array.from({ length: n }, () => made.pick(avoid));
  return { rotation: made, clock, picks };
}

test("calls go to every address in turn", (t) => {
  const { picks } = rotation(["a", "b", "c"]);
  t.deepEqual(picks(7), ["a", "b", "c", "a", "b", "c", "a"]);
});

test("one address takes every call, and has nowhere else to retry", (t) => {
  const { rotation: only, picks } = rotation(["a"]);
  t.deepEqual(picks(3), ["a", "a", "a"]);
  t.is(only.pick("a"), undefined);
  only.failed("a");
  t.is(only.pick(), "a", "out of rotation, but the only one there is");
});

test("a retry goes to another address than the one that failed", (t) => {
  const { rotation: r } = rotation(["a", "b", "c"]);
  t.is(r.pick(), "a");
  t.is(r.pick("b"), "c", "b is passed over for this pick");
  t.is(r.pick("b"), "a");
});

test("an address that failed is passed over until its backoff runs out, then tried again", (t) => {
  const { rotation: r, clock, picks } = rotation(["a", "b", "c"]);
  t.deepEqual(r.failed("b"), { failures: 1, backoffMs: 1_000 });
  t.false(r.inRotation("b"));
  t.deepEqual(picks(4), ["a", "c", "a", "c"]);
  clock.now = 999;
  t.deepEqual(picks(2), ["a", "c"]);
  clock.now = 1_000;
  t.true(r.inRotation("b"));
  t.deepEqual(picks(3), ["a", "b", "c"]);
});

test("failures in a row lengthen the backoff up to 10 s; a connection made puts the address back at once", (t) => {
  const { rotation: r, clock, picks } = rotation(["a", "b"]);
  const backoffs = Array.from({ length: 6 }, () => r.failed("a").backoffMs);
  t.deepEqual(backoffs, [1_000, 2_000, 4_000, 8_000, 10_000, 10_000]);
  clock.now = 9_999;
  t.deepEqual(picks(2), ["b", "b"]);
  t.true(r.succeeded("a"), "it had been out");
  t.deepEqual(picks(2), ["a", "b"]);
  t.false(r.succeeded("a"), "nothing to undo the second time");
  t.deepEqual(r.failed("a"), { failures: 1, backoffMs: 1_000 }, "the count starts again after a success");
});

test("when every address is out, calls still try them in turn: a service that came back is found at once", (t) => {
  const { rotation: r, picks } = rotation(["a", "b", "c"]);
  for (const address of ["a", "b", "c"]) r.failed(address);
  t.deepEqual(picks(4), ["a", "b", "c", "a"]);
  t.is(r.pick("b"), "c");
  r.succeeded("c");
  t.deepEqual(picks(2), ["c", "c"], "the one that answered takes the calls");
});

test("a resolution adds new addresses at the end and drops gone ones; the others keep their place and their failures", (t) => {
  const { rotation: r, picks } = rotation(["a", "b", "c"]);
  t.deepEqual(picks(2), ["a", "b"]);
  r.failed("a");
  t.deepEqual(r.update(["c", "d", "a"]), { added: ["d"], removed: ["b"] });
  t.deepEqual(r.addresses, ["a", "c", "d"]);
  t.deepEqual(picks(4).sort(), ["c", "c", "d", "d"], "a is still out: still resolving says nothing of whether it answers");
  t.deepEqual(r.update(["c", "d"]), { added: [], removed: ["a"] });
  t.deepEqual(r.update(["a", "c", "d"]), { added: ["a"], removed: [] });
  t.true(r.inRotation("a"), "an address that left and came back starts afresh");
  t.deepEqual(r.failed("b"), { failures: 0, backoffMs: 0 }, "a failure reported for an address no longer listed is ignored");
  t.deepEqual(r.addresses, ["c", "d", "a"]);
});

test("the same answer again changes nothing; an empty one empties the rotation", (t) => {
  const { rotation: r } = rotation(["a", "b"]);
  t.deepEqual(r.update(["b", "a"]), { added: [], removed: [] });
  t.deepEqual(r.addresses, ["a", "b"], "the order is the rotation's, not the resolver's");
  t.deepEqual(r.update([]), { added: [], removed: ["a", "b"] });
  t.is(r.pick(), undefined);
});

test("the default backoff: 1 s, doubling, at most 10 s", (t) => {
  t.deepEqual([1, 2, 3, 4, 5, 50].map(defaultBackoffMs), [1_000, 2_000, 4_000, 8_000, 10_000, 10_000]);
});
