// `store-admin key list` (docs/cli.md#commands) and last-used (the developer-settings issue): a
// key's last use shows within a minute, and a burst of requests writes its row once,
// not once per request — counted with a trigger on the table, not timed.
import test from "ava";
import postgres from "postgres";
import { api } from "../helpers/http.js";
import { createCliRunner } from "../helpers/cli.js";
import { createStore, startStack, type Stack } from "../helpers/stack.js";

let stack: Stack;

test.before(async () => {
  // No gateway-side key cache: every request reaches the catalog's authentication.
  stack = await startStack({ authCacheMs: 0 });
});

test.after.always(async () => {
  await stack?.close();
});

const cli = createCliRunner(() => ({ CATALOG_ADDR: stack.catalogAddr }));

/** Runs `store-admin key list` as an operator would (in this process, test/helpers/cli.ts) and parses its stdout. */
async function keyList(storeId: string): Promise<any> {
  const result = await cli.run(["key", "list", "--store", storeId]);
  if (result.code !== 0) throw new Error(result.stderr);
  return JSON.parse(result.stdout);
}

test.serial("key list shows name, prefix, mode, scopes, maker, created, last used and revoked — never the key", async (t) => {
  const { storeId, key, keyId } = await createStore(stack, undefined, "Key List Store");
  const revoked = await stack.stores.createApiKey({ storeId, name: "old integration" });
  await stack.stores.revokeApiKey({ storeId, keyId: revoked.apiKey!.id });

  const before = await keyList(storeId);
  t.deepEqual(Object.keys(before), ["keys"]);
  t.is(before.keys.length, 2);
  for (const entry of before.keys) t.deepEqual(Object.keys(entry), ["id", "name", "prefix", "mode", "scopes", "created_by", "created_at", "last_used_at", "revoked_at"]);
  t.deepEqual(
    before.keys.map((k: any) => [k.name, k.mode, k.revoked_at !== null, k.last_used_at, k.created_by, k.scopes.length]),
    [
      ["old integration", "live", true, null, "operator", 5],
      ["test", "live", false, null, "operator", 5],
    ],
  );
  const text = JSON.stringify(before);
  t.false(text.includes(key) || text.includes(revoked.secret), "no key in the output");
  t.true(key.startsWith(before.keys[1].prefix));

  t.is((await api(stack.baseUrl, "/v1/products", { key })).status, 200);
  const after = await keyList(storeId);
  const used = after.keys.find((k: any) => k.id === keyId);
  t.truthy(used.last_used_at, "last use shows after one request");
  t.true(Date.now() - Date.parse(used.last_used_at) < 60_000);
});

test.serial("300 requests with one key write its last-used at most twice", async (t) => {
  const { storeId, key, keyId } = await createStore(stack, undefined, "Busy Key Store");
  const admin = postgres(stack.dbUrl, { max: 1, onnotice: () => {} });
  t.teardown(() => admin.end({ timeout: 1 }));
  await admin.unsafe(`
    create table public.key_touches (key_id uuid, at timestamptz default clock_timestamp());
    create function public.count_key_touch() returns trigger language plpgsql as $$
    begin
      if new.last_used_at is distinct from old.last_used_at then insert into public.key_touches (key_id) values (new.id); end if;
      return new;
    end $$;
    create trigger count_key_touch after update on catalog.api_keys for each row execute function public.count_key_touch();`);

  let sent = 0;
  await Promise.all(
    Array.from({ length: 10 }, async () => {
      while (sent < 300) {
        sent++;
        const response = await api(stack.baseUrl, "/v1/products?limit=1", { key });
        t.is(response.status, 200);
      }
    }),
  );
  const [row] = await admin<{ n: number }[]>`select count(*)::int as n from public.key_touches where key_id = ${keyId}`;
  const n = row!.n;
  t.true(n >= 1, "the key's last use was recorded");
  t.true(n <= 2, `${n} writes for ${sent} requests`);
  t.log(`${sent} requests → ${n} write(s) of last_used_at`);
  const listed = (await keyList(storeId)).keys.find((k: any) => k.id === keyId);
  t.true(Date.now() - Date.parse(listed.last_used_at) < 60_000);
});
