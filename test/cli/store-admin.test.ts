// The operator CLI against a catalog service on a database of its own: run in this process
// (test/helpers/cli.ts), and as a real child process (`node cli/store-admin.js …`, which is
// what `npx store-admin` runs) where the program's exit and output are the point.
import { OPERATOR } from "../../common/actor.js";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import test from "ava";
import { Code, ConnectError } from "@connectrpc/connect";
import { AccountService } from "../../gen/catalog/v1/account_pb.js";
import { StoreService } from "../../gen/catalog/v1/catalog_pb.js";
import { INTERNAL_TOKEN_FILE } from "../../platform/rpc-auth.js";
import { createRpcChannel, type RpcChannel } from "../../platform/rpc-client.js";
import { startCatalogOnly } from "../helpers/stack.js";
import { createCliRunner } from "../helpers/cli.js";
import { freePort } from "../helpers/process.js";
import { TEST_INTERNAL_TOKEN } from "../helpers/internal-token.js";

const KEY = /^sk_live_[0-9A-Za-z]{32,}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const BANK = ["--bank-name", "Bank Central Asia", "--bank-code", "BCA", "--account-number", "0123456789", "--account-holder", "Budi Santoso"];

let catalogService: Awaited<ReturnType<typeof startCatalogOnly>>;
let catalogAddr: string;
let unusedAddr: string;
let admin: RpcChannel;

// The operator's machine, as `npm start` leaves it: the internal token kept in DATA_DIR
// and INTERNAL_TOKEN unset, so every command below finds the token there.
let dataDir: string;
let emptyDataDir: string;

test.before(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), "store-admin-"));
  emptyDataDir = await mkdtemp(path.join(os.tmpdir(), "store-admin-empty-"));
  await writeFile(path.join(dataDir, INTERNAL_TOKEN_FILE), TEST_INTERNAL_TOKEN + "\n", { mode: 0o600 });
  catalogService = await startCatalogOnly();
  catalogAddr = `http://127.0.0.1:${catalogService.port}`;
  unusedAddr = `http://127.0.0.1:${await freePort()}`;
  admin = createRpcChannel(catalogAddr, { actor: OPERATOR, internalToken: TEST_INTERNAL_TOKEN });
});

test.after.always(async () => {
  await program.stopAll();
  admin?.close();
  await catalogService?.close();
  for (const dir of [dataDir, emptyDataDir]) if (dir) await rm(dir, { recursive: true, force: true });
});

const cliEnv = () => ({
  INTERNAL_TOKEN: undefined,
  DATA_DIR: dataDir,
  CATALOG_ADDR: catalogAddr,
  // Nothing of ours listens there: never a shared default port.
  ORDER_ADDR: unusedAddr,
  WEBHOOK_ADDR: unusedAddr,
});
const runner = createCliRunner(cliEnv);
const program = createCliRunner(cliEnv, { spawn: true });
const cli = runner.run;
const ok = runner.ok;
const fails = runner.fails;

async function newStore(t: import("ava").ExecutionContext, name = "CLI Store"): Promise<string> {
  const store = await ok(t, ["store", "create", "--name", name, "--plan", "growth", ...BANK]);
  return store.id;
}

async function rejection(promise: Promise<unknown>): Promise<ConnectError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ConnectError) return error;
    throw error;
  }
  throw new Error("expected the call to fail");
}

test("store create prints the store as JSON with its plan and bank account", async (t) => {
  // The program: its answer on stdout, then it exits 0 by itself (nothing left open).
  const store = await program.ok(t, ["store", "create", "--name", "Toko Batik", "--plan", "growth", ...BANK]);
  t.regex(store.id, UUID);
  t.is(store.name, "Toko Batik");
  t.is(store.plan, "growth");
  t.deepEqual(store.bank_account, {
    bank_name: "Bank Central Asia",
    bank_code: "BCA",
    account_number: "0123456789",
    account_holder: "Budi Santoso",
  });
  t.false(Number.isNaN(Date.parse(store.created_at)));

  const bare = await ok(t, ["store", "create", "--name", "No Bank", "--plan", "starter"]);
  t.is(bare.plan, "starter");
  t.is(bare.bank_account, null);
});

test("store set-plan changes the plan", async (t) => {
  const storeId = await newStore(t);
  const changed = await ok(t, ["store", "set-plan", "--store", storeId, "--plan", "scale"]);
  t.is(changed.id, storeId);
  t.is(changed.plan, "scale");
  const stores = admin.client(StoreService);
  const { store } = await stores.getStore({ id: storeId });
  t.is(store!.name, "CLI Store");
  const key = await ok(t, ["key", "create", "--store", storeId]);
  const principal = await stores.authenticateApiKey({ secret: key.key });
  t.is(principal.storeId, storeId);
  t.is(principal.plan, 3); // PLAN_SCALE
});

test("key create prints exactly {id, key}; the key works until key revoke", async (t) => {
  const storeId = await newStore(t);
  const result = await cli(["key", "create", "--store", storeId, "--name", "checkout"]);
  t.is(result.code, 0, result.stderr);
  const created = JSON.parse(result.stdout);
  t.deepEqual(Object.keys(created).sort(), ["id", "key"]);
  t.regex(created.id, UUID);
  t.regex(created.key, KEY);

  const stores = admin.client(StoreService);
  const principal = await stores.authenticateApiKey({ secret: created.key });
  t.is(principal.storeId, storeId);
  t.is(principal.keyId, created.id);

  const revoked = await ok(t, ["key", "revoke", "--store", storeId, "--key", created.id]);
  t.is(revoked.id, created.id);
  t.is(revoked.store_id, storeId);
  t.is(revoked.name, "checkout");
  t.false(Number.isNaN(Date.parse(revoked.revoked_at)));
  t.false(JSON.stringify(revoked).includes(created.key), "the secret is never shown again");
  const error = await rejection(stores.authenticateApiKey({ secret: created.key }));
  t.is(error.code, Code.Unauthenticated);
});

test("two keys of one store are different", async (t) => {
  const storeId = await newStore(t);
  const [a, b] = await Promise.all([
    ok(t, ["key", "create", "--store", storeId]),
    ok(t, ["key", "create", "--store", storeId]),
  ]);
  t.not(a.key, b.key);
  t.not(a.id, b.id);
});

test("key create --scopes gives the key just those scopes, key list shows them and its maker; an unknown scope is refused by name", async (t) => {
  const storeId = await newStore(t);
  const narrow = await ok(t, ["key", "create", "--store", storeId, "--name", "Shop sync", "--scopes", "orders:read"]);
  const all = await ok(t, ["key", "create", "--store", storeId, "--name", "ERP"]);
  const stores = admin.client(StoreService);
  t.deepEqual((await stores.authenticateApiKey({ secret: narrow.key })).scopes, ["orders:read"], "the key may do just that");
  t.is((await stores.authenticateApiKey({ secret: all.key })).scopes.length, 5, "without --scopes: all five");

  const { keys } = await ok(t, ["key", "list", "--store", storeId]);
  const listed = (id: string) => keys.find((key: { id: string }) => key.id === id);
  t.like(listed(narrow.id), { name: "Shop sync", scopes: ["orders:read"], created_by: "operator" });
  t.deepEqual(listed(all.id).scopes, ["catalog:read", "catalog:write", "orders:read", "orders:write", "payments:write"]);

  const before = keys.length;
  const refused = await fails(t, ["key", "create", "--store", storeId, "--scopes", "orders:read,orders:delete"], /unknown scope "orders:delete"/);
  t.regex(refused.stderr, /payments:write/, "and says which scopes there are");
  await fails(t, ["key", "create", "--store", storeId, "--scopes", ","], /--scopes/);
  t.is((await ok(t, ["key", "list", "--store", storeId])).keys.length, before, "no key was made");
});

test("key create --mode test makes an sk_test_ key, and key list shows its mode", async (t) => {
  const storeId = await newStore(t);
  const made = await ok(t, ["key", "create", "--store", storeId, "--name", "CI", "--mode", "test"]);
  t.regex(made.key, /^sk_test_/);
  t.like((await ok(t, ["key", "list", "--store", storeId])).keys.find((key: { id: string }) => key.id === made.id), { mode: "test" });
});

test("user remove revokes the API keys the member made, or keeps them with --keep-api-keys, and prints which", async (t) => {
  const storeId = await newStore(t);
  const accounts = admin.client(AccountService);
  const memberKey = async (email: string, name: string) => {
    const { member, invitationToken } = await accounts.inviteMember({ storeId, email, role: "developer" });
    // Only an accepted invitation makes a member of the store.
    await accounts.acceptInvitation({ token: invitationToken, password: "a long enough password" });
    const channel = createRpcChannel(catalogAddr, { actor: { kind: "member", memberId: member!.id, role: "developer", email }, internalToken: TEST_INTERNAL_TOKEN });
    t.teardown(() => channel.close());
    const { secret } = await channel.client(StoreService).createApiKey({ storeId, name });
    return { memberId: member!.id, secret };
  };
  const leaving = await memberKey("andi@cli.example", "Shop sync");
  const staying = await memberKey("rina@cli.example", "ERP");
  const stores = admin.client(StoreService);

  const revoked = await ok(t, ["user", "remove", "--store", storeId, "--user", leaving.memberId]);
  t.like(revoked, { id: leaving.memberId, removed: true, revoked_api_keys: ["Shop sync"] });
  t.is((await rejection(stores.authenticateApiKey({ secret: leaving.secret }))).code, Code.Unauthenticated, "the key went with them");

  const kept = await ok(t, ["user", "remove", "--store", storeId, "--user", staying.memberId, "--keep-api-keys"]);
  t.like(kept, { id: staying.memberId, removed: true, kept_api_keys: ["ERP"] });
  t.false("revoked_api_keys" in kept);
  t.is((await stores.authenticateApiKey({ secret: staying.secret })).storeId, storeId, "the kept key still works");
});

test("product create and bundle create print the item", async (t) => {
  const storeId = await newStore(t);
  const a = await ok(t, ["product", "create", "--store", storeId, "--title", "Kain Batik Tulis", "--price", "25000"]);
  t.regex(a.id, UUID);
  t.like(a, { store_id: storeId, type: "product", title: "Kain Batik Tulis", slug: "kain-batik-tulis", price: 25000, status: "published" });
  const b = await ok(t, [
    "product", "create", "--store", storeId, "--title", "Selendang", "--price", "0", "--slug", "selendang-sutra", "--status", "draft",
  ]);
  t.like(b, { type: "product", slug: "selendang-sutra", price: 0, status: "draft" });
  const again = await ok(t, ["product", "create", "--store", storeId, "--title", "Kain Batik Tulis", "--price", "30000"]);
  t.is(again.slug, "kain-batik-tulis-2");

  const bundle = await ok(t, [
    "bundle", "create", "--store", storeId, "--title", "Paket Batik", "--price", "50000", "--product", a.id, "--product", b.id,
  ]);
  t.like(bundle, { store_id: storeId, type: "bundle", title: "Paket Batik", slug: "paket-batik", price: 50000, status: "published" });
  t.deepEqual(bundle.product_ids, [a.id, b.id]);
});

test("stock on product create, product update, bundle create with quantities and bundle update print the item as the API shows it", async (t) => {
  const storeId = await newStore(t);
  const kopi = await ok(t, ["product", "create", "--store", storeId, "--title", "Kopi", "--price", "25000", "--stock", "10"]);
  t.like(kopi, { type: "product", stock: 10, available: 10, items: [] });
  const teh = await ok(t, ["product", "create", "--store", storeId, "--title", "Teh", "--price", "8000"]);
  t.like(teh, { stock: null, available: null });

  const paket = await ok(t, ["bundle", "create", "--store", storeId, "--title", "Paket", "--price", "50000", "--items", `${kopi.id}:2,${teh.id}`]);
  t.deepEqual(paket.items, [
    { product_id: kopi.id, quantity: 2 },
    { product_id: teh.id, quantity: 1 },
  ]);
  t.like(paket, { stock: null, available: 5 });

  const changed = await ok(t, ["product", "update", "--store", storeId, "--product", kopi.id, "--price", "27500", "--stock", "3", "--status", "draft"]);
  t.like(changed, { id: kopi.id, title: "Kopi", price: 27500, status: "draft", stock: 3, available: 3 });
  const regrouped = await ok(t, ["bundle", "update", "--store", storeId, "--bundle", paket.id, "--items", `${teh.id}:4`, "--stock", "none", "--title", "Paket Teh"]);
  t.like(regrouped, { id: paket.id, title: "Paket Teh", price: 50000, stock: null, available: null, items: [{ product_id: teh.id, quantity: 4 }] });
  await fails(t, ["product", "update", "--store", storeId, "--product", kopi.id, "--stock", "ten"], /--stock must be a whole number of units or none/);
  await fails(t, ["bundle", "update", "--store", storeId, "--bundle", paket.id], /say what to change/);
});

test("seed prints a demo store id and a working key", async (t) => {
  const seeded = await ok(t, ["seed"]);
  t.regex(seeded.store_id, UUID);
  t.regex(seeded.key, KEY);
  t.true(seeded.product_ids.length >= 1);
  const principal = await admin.client(StoreService).authenticateApiKey({ secret: seeded.key });
  t.is(principal.storeId, seeded.store_id);
});


test("an unknown command fails with exit 1 and a message on stderr", async (t) => {
  await program.fails(t, ["store", "destroy", "--name", "x"], /unknown command/);
  await program.fails(t, [], /usage/);
});

test("an unknown option fails with exit 1", async (t) => {
  await fails(t, ["store", "create", "--name", "x", "--colour", "red"], /colour/);
});

test("store create without --name fails", async (t) => {
  await fails(t, ["store", "create", "--plan", "growth"], /--name/);
});

test("a bad --plan fails", async (t) => {
  await fails(t, ["store", "create", "--name", "x", "--plan", "gold"], /--plan/);
});

test("part of a bank account fails", async (t) => {
  await fails(t, ["store", "create", "--name", "x", "--bank-name", "BCA"], /bank/);
});

test("a price that is not a whole number fails", async (t) => {
  const storeId = await newStore(t);
  await fails(t, ["product", "create", "--store", storeId, "--title", "T", "--price", "1.5"], /--price/);
  await fails(t, ["product", "create", "--store", storeId, "--title", "T", "--price", "-5"], /price/);
  await fails(t, ["product", "create", "--store", storeId, "--title", "T", "--price", "12abc"], /--price/);
});

test("a store id that does not exist fails", async (t) => {
  const missing = "00000000-0000-4000-8000-000000000000";
  await fails(t, ["key", "create", "--store", missing], /not found/i);
  await fails(t, ["product", "create", "--store", missing, "--title", "T", "--price", "100"], /not found/i);
  await fails(t, ["store", "set-plan", "--store", missing, "--plan", "scale"], /not found/i);
  await fails(t, ["key", "create", "--store", "not-a-uuid"], /store_id/);
});

test("a bundle with a product of another store fails", async (t) => {
  const mine = await newStore(t);
  const theirs = await newStore(t, "Other");
  const product = await ok(t, ["product", "create", "--store", theirs, "--title", "Theirs", "--price", "100"]);
  await fails(t, ["bundle", "create", "--store", mine, "--title", "B", "--price", "100", "--product", product.id], /product/);
  await fails(t, ["bundle", "create", "--store", mine, "--title", "B", "--price", "100"], /--product/);
});

test("an unreachable catalog service fails with exit 1", async (t) => {
  const port = await freePort();
  // The program: it exits, with 1, although its connection never opened.
  await program.fails(t, ["seed"], /unavailable|ECONNREFUSED|connect/i, { CATALOG_ADDR: `http://127.0.0.1:${port}` });
});

test("without the internal token (none in DATA_DIR, INTERNAL_TOKEN unset) or with another, a command is refused naming INTERNAL_TOKEN, and nothing is made", async (t) => {
  const name = "Toko Tanpa Token";
  await fails(t, ["store", "create", "--name", name], /^store-admin: catalog\.v1\.StoreService asks for the internal token, and INTERNAL_TOKEN is not set for this client \(Unavailable\)\n$/, {
    DATA_DIR: emptyDataDir,
  });
  // INTERNAL_TOKEN, when set, is the one used, before what DATA_DIR keeps.
  const wrong = await fails(t, ["store", "create", "--name", name], /refused the internal token of this client: its INTERNAL_TOKEN differs from the service's \(Unavailable\)/, {
    INTERNAL_TOKEN: "w".repeat(43),
  });
  t.false(wrong.stderr.includes("w".repeat(43)), "the token is never printed");
  const [row] = await catalogService.sql<{ n: number }[]>`select count(*)::int as n from stores where name = ${name}`;
  t.is(row!.n, 0);
});
