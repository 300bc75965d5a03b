import test from "ava";
import { Code, ConnectError } from "@connectrpc/connect";
import { createAuthenticator } from "../../gateway/auth.js";

/** A catalog whose AuthenticateApiKey answers when told to, counting the questions. */
function fakeCatalog() {
  const waiting: { resolve: (answer: unknown) => void; reject: (error: Error) => void }[] = [];
  let revoked = false;
  const catalog = {
    calls: 0,
    revoke: () => (revoked = true),
    /** Answers every question asked so far. */
    answerAll() {
      for (const { resolve, reject } of waiting.splice(0)) {
        if (revoked) reject(new ConnectError("invalid api key", Code.Unauthenticated));
        else resolve({ keyId: "key-1", storeId: "store-1", plan: 0, scopes: ["orders:read"] });
      }
    },
    failAll() {
      for (const { reject } of waiting.splice(0)) reject(new ConnectError("deadline", Code.DeadlineExceeded));
    },
    store: {
      authenticateApiKey: () => {
        catalog.calls++;
        return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
      },
    },
  };
  return catalog;
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** The key's first lookup, answered: its answer is remembered from now on. */
async function answered(auth: ReturnType<typeof createAuthenticator>, catalog: ReturnType<typeof fakeCatalog>) {
  const first = auth.authenticate("sk_test_one");
  await tick();
  catalog.answerAll();
  await first;
}

test("fifty requests that find no remembered answer share one lookup", async (t) => {
  const catalog = fakeCatalog();
  const auth = createAuthenticator(catalog as never, 2_000);
  const answers = Array.from({ length: 50 }, () => auth.authenticate("sk_test_one"));
  await tick();
  t.is(catalog.calls, 1);
  catalog.answerAll();
  const principals = await Promise.all(answers);
  t.true(principals.every((principal) => principal?.storeId === "store-1"));
});

test("a failed lookup fails the requests that shared it and is not remembered", async (t) => {
  const catalog = fakeCatalog();
  const auth = createAuthenticator(catalog as never, 2_000);
  const answers = [auth.authenticate("sk_test_one"), auth.authenticate("sk_test_one")];
  await tick();
  catalog.failAll();
  for (const answer of answers) await t.throwsAsync(answer, { instanceOf: ConnectError });
  const again = auth.authenticate("sk_test_one");
  await tick();
  t.is(catalog.calls, 2);
  catalog.answerAll();
  t.is((await again)?.keyId, "key-1");
});

test("near its expiry a busy key is looked up in the background while the remembered answer serves", async (t) => {
  const catalog = fakeCatalog();
  let clock = 0;
  const auth = createAuthenticator(catalog as never, 2_000, 10_000, { refreshAheadMs: 500, now: () => clock });
  await answered(auth, catalog);

  clock = 1_000;
  t.is((await auth.authenticate("sk_test_one"))?.storeId, "store-1");
  t.is(catalog.calls, 1, "fresh: no lookup");

  clock = 1_600;
  // Served at once, without waiting on the refresh it starts; further requests start no other.
  t.is((await auth.authenticate("sk_test_one"))?.storeId, "store-1");
  t.is((await auth.authenticate("sk_test_one"))?.storeId, "store-1");
  t.is(catalog.calls, 2);
  catalog.answerAll();
  await tick();

  clock = 3_000; // past the first answer's expiry, within the refreshed one's
  t.is((await auth.authenticate("sk_test_one"))?.storeId, "store-1");
  t.is(catalog.calls, 2);
});

test("a key revoked meanwhile is refused once the refresh hears so, and never after the TTL", async (t) => {
  const catalog = fakeCatalog();
  let clock = 0;
  const auth = createAuthenticator(catalog as never, 2_000, 10_000, { refreshAheadMs: 500, now: () => clock });
  await answered(auth, catalog);

  catalog.revoke();
  clock = 1_700;
  t.truthy(await auth.authenticate("sk_test_one"), "still within the answer's TTL");
  catalog.answerAll(); // the background refresh hears: revoked
  await tick();
  const after = auth.authenticate("sk_test_one");
  await tick();
  catalog.answerAll();
  t.is(await after, undefined);
});

test("the principal's mode is the catalog's answer for the key, not read from the key's text", async (t) => {
  const answering = (livemode: boolean) => ({
    store: { authenticateApiKey: async () => ({ keyId: "key-1", storeId: "store-1", plan: 0, scopes: ["orders:read"], livemode }) },
  });
  t.false((await createAuthenticator(answering(false) as never).authenticate(`sk_live_${"a".repeat(40)}`))!.livemode);
  t.true((await createAuthenticator(answering(true) as never).authenticate(`sk_test_${"a".repeat(40)}`))!.livemode);
});
