// The gateway's page cache on its own: keys, TTL on a fake clock, per-store
// invalidation (also of a read under way), the size bounds. No network.
import test from "ava";
import { createCatalogPageCache } from "../../gateway/catalog-cache.js";

const body = (text: string) => Buffer.from(text);

/** A load that counts its calls and answers `text`. */
function loader(text: string) {
  const load = async () => {
    load.calls++;
    return body(text);
  };
  load.calls = 0;
  return load;
}

/** A load that answers only when released. */
function gate(text: string) {
  let release!: () => void;
  const opened = new Promise<void>((resolve) => (release = resolve));
  let calls = 0;
  return {
    load: async () => {
      calls++;
      await opened;
      return body(text);
    },
    release,
    calls: () => calls,
  };
}

test("a page is kept per store, limit and offset, and served without loading again", async (t) => {
  const cache = createCatalogPageCache();
  const first = loader("a-20-0");
  t.is((await cache.page("a", 20, 0, first)).toString(), "a-20-0");
  t.is((await cache.page("a", 20, 0, first)).toString(), "a-20-0");
  t.is(first.calls, 1);

  const others = [
    ["b", 20, 0],
    ["a", 10, 0],
    ["a", 20, 20],
  ] as const;
  for (const [store, limit, offset] of others) {
    const load = loader(`${store}-${limit}-${offset}`);
    t.is((await cache.page(store, limit, offset, load)).toString(), `${store}-${limit}-${offset}`);
    t.is(load.calls, 1, `${store}/${limit}/${offset} is a page of its own`);
  }
  t.like(cache.stats(), { pages: 4, stores: 2 });
});

test("a page older than the TTL is loaded again", async (t) => {
  let now = 1_000;
  const cache = createCatalogPageCache({ ttlMs: 5_000, refreshAheadMs: 0, now: () => now });
  await cache.page("a", 20, 0, loader("old"));
  now += 4_999;
  t.is((await cache.page("a", 20, 0, loader("new"))).toString(), "old");
  now += 1;
  t.is((await cache.page("a", 20, 0, loader("new"))).toString(), "new");
  now += 4_999;
  t.is((await cache.page("a", 20, 0, loader("newer"))).toString(), "new");
});

test("a page read in its last second is read again in the background while the cached one is served", async (t) => {
  let now = 0;
  const cache = createCatalogPageCache({ ttlMs: 5_000, refreshAheadMs: 1_000, now: () => now });
  await cache.page("a", 20, 0, loader("v1"));
  now = 3_999;
  const early = loader("unused");
  t.is((await cache.page("a", 20, 0, early)).toString(), "v1");
  t.is(early.calls, 0, "no refresh before the last second");

  now = 4_000;
  const refresh = gate("v2");
  t.is((await cache.page("a", 20, 0, refresh.load)).toString(), "v1", "served at once, not after the refresh");
  t.is((await cache.page("a", 20, 0, refresh.load)).toString(), "v1");
  t.is(refresh.calls(), 1, "one refresh at a time");
  refresh.release();
  await new Promise((resolve) => setImmediate(resolve));
  now = 8_999; // past the first page's TTL, within the refreshed one's (read at 4,000)
  t.is((await cache.page("a", 20, 0, loader("unused"))).toString(), "v2");

  // A refresh that fails is not the requests' failure: the page lives to its TTL, and
  // the next request tries again.
  now = 0;
  const cache2 = createCatalogPageCache({ ttlMs: 5_000, refreshAheadMs: 1_000, now: () => now });
  await cache2.page("b", 20, 0, loader("kept"));
  now = 4_500;
  let failures = 0;
  const away = async (): Promise<Buffer> => {
    failures++;
    throw new Error("catalog away");
  };
  t.is((await cache2.page("b", 20, 0, away)).toString(), "kept");
  await new Promise((resolve) => setImmediate(resolve));
  t.is((await cache2.page("b", 20, 0, away)).toString(), "kept");
  await new Promise((resolve) => setImmediate(resolve));
  t.is(failures, 2);
  now = 5_000;
  t.is((await cache2.page("b", 20, 0, loader("fresh"))).toString(), "fresh");
});

test("a change drops every page of that store and no other", async (t) => {
  const cache = createCatalogPageCache();
  await cache.page("a", 20, 0, loader("a1"));
  await cache.page("a", 2, 4, loader("a1"));
  await cache.page("b", 20, 0, loader("b1"));
  cache.changed("a");
  t.like(cache.stats(), { pages: 1, stores: 1 });
  t.is((await cache.page("a", 20, 0, loader("a2"))).toString(), "a2");
  t.is((await cache.page("a", 2, 4, loader("a2"))).toString(), "a2");
  t.is((await cache.page("b", 20, 0, loader("b2"))).toString(), "b1");
  cache.changed("nobody");
  t.like(cache.stats(), { pages: 3, stores: 2 });
});

test("missed hints drop everything", async (t) => {
  const cache = createCatalogPageCache();
  await cache.page("a", 20, 0, loader("a1"));
  await cache.page("b", 20, 0, loader("b1"));
  cache.missed();
  t.deepEqual(cache.stats(), { pages: 0, bytes: 0, stores: 0 });
  t.is((await cache.page("b", 20, 0, loader("b2"))).toString(), "b2");
});

test("concurrent misses share one load", async (t) => {
  const cache = createCatalogPageCache();
  const slow = gate("one");
  const answers = Promise.all([1, 2, 3].map(() => cache.page("a", 20, 0, slow.load)));
  slow.release();
  t.deepEqual((await answers).map(String), ["one", "one", "one"]);
  t.is(slow.calls(), 1);
});

test("a read under way when the store changes is answered but not kept; later requests read afresh", async (t) => {
  const cache = createCatalogPageCache();
  const before = gate("before the change");
  const early = cache.page("a", 20, 0, before.load);
  cache.changed("a");
  const after = loader("after the change");
  const late = cache.page("a", 20, 0, after);
  before.release();
  t.is((await early).toString(), "before the change");
  t.is((await late).toString(), "after the change");
  t.is(after.calls, 1, "the request after the change did not join the earlier read");
  t.is((await cache.page("a", 20, 0, loader("x"))).toString(), "after the change", "only the fresh answer is kept");

  // The same for everything at once.
  const cache2 = createCatalogPageCache();
  const stale = gate("stale");
  const pending = cache2.page("b", 20, 0, stale.load);
  cache2.missed();
  stale.release();
  await pending;
  t.is(cache2.stats().pages, 0);
});

test("a failed load is not kept", async (t) => {
  const cache = createCatalogPageCache();
  await t.throwsAsync(cache.page("a", 20, 0, async () => Promise.reject(new Error("catalog away"))), { message: "catalog away" });
  t.is(cache.stats().pages, 0);
  t.is((await cache.page("a", 20, 0, loader("back"))).toString(), "back");
});

test("the page count is bounded: the least recently read page goes first", async (t) => {
  const cache = createCatalogPageCache({ maxPages: 3 });
  for (const offset of [0, 1, 2]) await cache.page("a", 1, offset, loader(`p${offset}`));
  await cache.page("a", 1, 0, loader("unused")); // read p0 again: p1 is now the oldest
  await cache.page("b", 1, 0, loader("b0"));
  t.is(cache.stats().pages, 3);
  const p1 = loader("p1 again");
  await cache.page("a", 1, 1, p1);
  t.is(p1.calls, 1, "p1 was evicted");
  const p0 = loader("unused");
  await cache.page("a", 1, 0, p0);
  t.is(p0.calls, 0, "p0, read recently, was kept");
});

test("the bytes held are bounded, and a page larger than the whole budget is served but not kept", async (t) => {
  const maxBytes = 10_000;
  const cache = createCatalogPageCache({ maxBytes });
  for (let offset = 0; offset < 50; offset++) await cache.page("a", 1, offset, loader("x".repeat(1_000)));
  const { bytes, pages } = cache.stats();
  t.true(bytes <= maxBytes, `${bytes} bytes held`);
  t.true(pages > 0 && pages < 10, `${pages} pages held`);

  const huge = "y".repeat(maxBytes);
  t.is((await cache.page("big", 50, 0, loader(huge))).length, maxBytes);
  t.is(cache.stats().stores, 1, "the huge page was not kept");

  // Dropping a store gives its bytes back.
  cache.changed("a");
  t.deepEqual(cache.stats(), { pages: 0, bytes: 0, stores: 0 });
});
