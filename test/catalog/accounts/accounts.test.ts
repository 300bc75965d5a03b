// Dashboard accounts on real PostgreSQL through the catalog service's gRPC port
// (docs/dashboard.md#sign-in): invitations, passwords, the sign-in lock, session expiry, removal,
// several stores, races, the audit log and store settings. Expiry is reached by moving
// the rows' timestamps back, as the passing of time would.
import test, { type ExecutionContext } from "ava";
import { createHash } from "node:crypto";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type Client } from "@connectrpc/connect";
import { AccountService } from "../../../gen/catalog/v1/account_pb.js";
import { StoreService } from "../../../gen/catalog/v1/catalog_pb.js";
import { rehashPassword } from "../../../services/catalog/db/members.js";
import { pruneAccounts } from "../../../services/catalog/db/prune-accounts.js";
import { hashPassword } from "../../../services/catalog/accounts/passwords.js";
import { CATALOG_SCHEMA } from "../../../services/catalog/service.js";
import { connectDb, type Sql } from "../../../platform/db.js";
import { createRpcChannel, type RpcChannel } from "../../../platform/rpc-client.js";
import { TEST_SCRYPT } from "../../helpers/scrypt.js";
import { startCatalogOnly } from "../../helpers/stack.js";
import { OPERATOR } from "../../../common/actor.js";
import { TEST_INTERNAL_TOKEN } from "../../helpers/internal-token.js";

const PASSWORD = "kata sandi rahasia";

let service: Awaited<ReturnType<typeof startCatalogOnly>>;
let channel: RpcChannel;
let sql: Sql;
let accounts: Client<typeof AccountService>;
let stores: Client<typeof StoreService>;

test.before(async () => {
  service = await startCatalogOnly();
  // The operator's calls, as from store-admin.
  channel = createRpcChannel(`http://127.0.0.1:${service.port}`, { timeoutMs: 20_000, actor: OPERATOR, internalToken: TEST_INTERNAL_TOKEN });
  accounts = channel.client(AccountService);
  stores = channel.client(StoreService);
  sql = connectDb(service.db.url, { schema: CATALOG_SCHEMA, max: 2 });
});

test.after.always(async () => {
  channel?.close();
  await sql?.end({ timeout: 1 });
  await service?.close();
});

const sha256 = (text: string) => createHash("sha256").update(text).digest();

/** Every authentication failure is exactly this, whatever the reason. */
async function failsAuthentication(t: ExecutionContext, call: Promise<unknown>, why: string) {
  const error = ConnectError.from(await t.throwsAsync(call, undefined, why));
  t.is(error.code, Code.Unauthenticated, why);
  t.is(error.rawMessage, "invalid credentials", why);
}

let storeCount = 0;
async function newStore(name = `Toko ${++storeCount}`) {
  const { store } = await stores.createStore({ name });
  return store!.id;
}

let emailCount = 0;
const newEmail = () => `anggota${++emailCount}.${Date.now()}@example.co.id`;

/** A developer by default: a store's last owner could not be removed. */
async function activeMember(storeId: string, email = newEmail(), password = PASSWORD, role = "developer") {
  const invited = await accounts.inviteMember({ storeId, email, role });
  const accepted = await accounts.acceptInvitation({ token: invited.invitationToken, password });
  return { email, memberId: invited.member!.id, token: accepted.session!.token };
}

test("invite → accept → resolve: the member is active, signed in, and only hashes are stored", async (t) => {
  const storeId = await newStore("Toko Undangan");
  const email = newEmail();
  const invited = await accounts.inviteMember({ storeId, email: email.toUpperCase() });
  t.like(invited.member, { email, status: "invited" });
  const [invitation] = await sql<{ token_hash: Buffer; hours: number }[]>`
    select token_hash, extract(epoch from expires_at - created_at) / 3600 as hours from invitations where member_id = ${invited.member!.id}`;
  t.deepEqual(invitation!.token_hash, sha256(invited.invitationToken));
  t.true(Math.abs(Number(invitation!.hours) - 72) < 0.01);

  const accepted = await accounts.acceptInvitation({ token: invited.invitationToken, password: PASSWORD });
  t.like(accepted.member, { id: invited.member!.id, email, status: "active" });
  const expiresIn = timestampDate(accepted.session!.expiresAt!).getTime() - Date.now();
  t.true(Math.abs(expiresIn - 12 * 3_600_000) < 60_000, "12 h from now");

  const resolved = await accounts.resolveSession({ token: accepted.session!.token });
  t.like(resolved.member, { id: invited.member!.id, email, status: "active" });
  t.deepEqual(resolved.stores.map((s) => [s.id, s.name]), [[storeId, "Toko Undangan"]]);
  const [session] = await sql<{ id: string; token_hash: Buffer }[]>`select id, token_hash from sessions where member_id = ${invited.member!.id}`;
  t.is(resolved.sessionId, session!.id);
  t.deepEqual(session!.token_hash, sha256(accepted.session!.token));

  const [member] = await sql<{ password_hash: string }[]>`select password_hash from members where id = ${invited.member!.id}`;
  // scrypt with the stack's parameters (a test stack's are cheaper; SCRYPT_PARAMS is in passwords.unit).
  t.regex(member!.password_hash, new RegExp(`^scrypt\\$${TEST_SCRYPT.N}\\$8\\$1\\$[A-Za-z0-9_-]+\\$[A-Za-z0-9_-]+$`));
  const everything = JSON.stringify(await sql`select * from members, invitations, sessions where members.id = ${invited.member!.id}`);
  for (const secret of [PASSWORD, invited.invitationToken, accepted.session!.token]) t.false(everything.includes(secret));

  t.truthy(await accounts.signIn({ email, password: PASSWORD }), "the password set by the invitation signs in");
});

test("a used invitation and an expired one fail exactly like a made-up token", async (t) => {
  const storeId = await newStore();
  const used = await accounts.inviteMember({ storeId, email: newEmail() });
  await accounts.acceptInvitation({ token: used.invitationToken, password: PASSWORD });
  await failsAuthentication(t, accounts.acceptInvitation({ token: used.invitationToken, password: PASSWORD }), "used");

  const expired = await accounts.inviteMember({ storeId, email: newEmail() });
  await sql`update invitations set expires_at = now() - interval '1 second' where token_hash = ${sha256(expired.invitationToken)}`;
  await failsAuthentication(t, accounts.acceptInvitation({ token: expired.invitationToken, password: PASSWORD }), "expired");
  await failsAuthentication(t, accounts.acceptInvitation({ token: "A".repeat(43), password: PASSWORD }), "unknown");
  await failsAuthentication(t, accounts.acceptInvitation({ token: "not even a token", password: PASSWORD }), "malformed");

  const [row] = await sql<{ password_hash: string | null; used_at: Date | null }[]>`
    select m.password_hash, i.used_at from invitations i join members m on m.id = i.member_id where i.token_hash = ${sha256(expired.invitationToken)}`;
  t.deepEqual(row, { password_hash: null, used_at: null }, "the expired invitation changed nothing");

  const fresh = await accounts.inviteMember({ storeId, email: newEmail() });
  await sql`update invitations set expires_at = now() + interval '1 minute' where token_hash = ${sha256(fresh.invitationToken)}`;
  t.truthy(await accounts.acceptInvitation({ token: fresh.invitationToken, password: PASSWORD }), "a minute before expiry it still works");
});

test("ten concurrent accepts of one invitation: one session, nine failures", async (t) => {
  const storeId = await newStore();
  const invited = await accounts.inviteMember({ storeId, email: newEmail() });
  const results = await Promise.allSettled(
    Array.from({ length: 10 }, (_, i) => accounts.acceptInvitation({ token: invited.invitationToken, password: `${PASSWORD} ${i}` })),
  );
  const won = results.filter((r) => r.status === "fulfilled");
  t.is(won.length, 1);
  for (const r of results) {
    if (r.status === "rejected") t.is(ConnectError.from(r.reason).rawMessage, "invalid credentials");
  }
  const sessions = await sql`select 1 from sessions where member_id = ${invited.member!.id}`;
  t.is(sessions.length, 1);
  // The winner's password is the stored one: no loser overwrote it.
  const index = results.findIndex((r) => r.status === "fulfilled");
  const winner = (results[index] as PromiseFulfilledResult<Awaited<ReturnType<typeof accounts.acceptInvitation>>>).value;
  t.truthy(await accounts.resolveSession({ token: winner.session!.token }));
  t.truthy(await accounts.signIn({ email: invited.member!.email, password: `${PASSWORD} ${index}` }));
});

test("a sign-in with a hash of other parameters (N = 2^15) rewrites it with the service's in the database; the password still signs in", async (t) => {
  const storeId = await newStore();
  const { email, memberId } = await activeMember(storeId);
  const old = await hashPassword(PASSWORD, { N: 2 ** 15, r: 8, p: 1 });
  await sql`update members set password_hash = ${old} where id = ${memberId}`;
  const storedHash = async () => (await sql<{ password_hash: string }[]>`select password_hash from members where id = ${memberId}`)[0]!.password_hash;

  await failsAuthentication(t, accounts.signIn({ email, password: "wrong password!!" }), "wrong password");
  t.is(await storedHash(), old, "a failed sign-in rewrites nothing");
  await accounts.signIn({ email, password: PASSWORD });
  const upgraded = await storedHash();
  t.true(upgraded.startsWith(`scrypt$${TEST_SCRYPT.N}$${TEST_SCRYPT.r}$${TEST_SCRYPT.p}$`), upgraded);
  t.truthy(await accounts.signIn({ email, password: PASSWORD }), "the rewritten hash verifies the same password");
  t.is(await storedHash(), upgraded, "and is not rewritten again");

  // The rewrite is conditional on the hash it replaces: a password set meanwhile stays.
  t.false(await rehashPassword(sql, memberId, old, "scrypt$stale"));
  t.is(await storedHash(), upgraded);
});

test("inviting the decomposed form of a member's email (e + combining accent) finds the same member", async (t) => {
  const storeId = await newStore();
  const composed = `jos\u00e9.${++emailCount}@caf\u00e9.example`;
  const first = await accounts.inviteMember({ storeId, email: composed });
  const again = await accounts.inviteMember({ storeId: await newStore(), email: composed.normalize("NFD").toUpperCase() });
  t.is(again.member!.id, first.member!.id);
  t.is(again.member!.email, composed);
  const rows = await sql`select id from members where email in (${composed}, ${composed.normalize("NFD")})`;
  t.is(rows.length, 1);
});

test("10 failures lock the email; the 11th attempt fails even with the right password; after 15 minutes it works", async (t) => {
  const storeId = await newStore();
  const { email } = await activeMember(storeId);
  for (let i = 0; i < 10; i++) {
    await failsAuthentication(t, accounts.signIn({ email, password: `wrong password ${i}` }), `failure ${i + 1}`);
  }
  await failsAuthentication(t, accounts.signIn({ email, password: PASSWORD }), "locked");
  await failsAuthentication(t, accounts.signIn({ email: email.toUpperCase(), password: PASSWORD }), "locked, whatever the case");

  // Fourteen minutes on: still locked.
  await sql`
    update sign_in_throttle set locked_until = locked_until - interval '14 minutes',
      recent_attempts = array(select a - interval '14 minutes' from unnest(recent_attempts) a)
    where email = ${email}`;
  await failsAuthentication(t, accounts.signIn({ email, password: PASSWORD }), "locked after 14 minutes");
  // Fifteen minutes after the tenth failure.
  await sql`
    update sign_in_throttle set locked_until = locked_until - interval '1 minute',
      recent_attempts = array(select a - interval '1 minute' from unnest(recent_attempts) a)
    where email = ${email}`;
  const { member } = await accounts.signIn({ email, password: PASSWORD });
  t.is(member!.email, email);
  t.is((await sql`select 1 from sign_in_throttle where email = ${email}`).length, 0, "a success clears the count");
});

test("ten concurrent wrong passwords lock the email as surely as ten in a row", async (t) => {
  const storeId = await newStore();
  const { email } = await activeMember(storeId);
  const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => accounts.signIn({ email, password: `wrong password ${i}` })));
  t.true(results.every((r) => r.status === "rejected"));
  await failsAuthentication(t, accounts.signIn({ email, password: PASSWORD }), "locked");
});

test("an unknown email is throttled too, and fails like a wrong password", async (t) => {
  const email = newEmail();
  for (let i = 0; i < 10; i++) await failsAuthentication(t, accounts.signIn({ email, password: PASSWORD }), `unknown ${i + 1}`);
  // Otherwise the lock would tell which emails have accounts.
  const [throttle] = await sql<{ attempts: number; locked: boolean }[]>`
    select cardinality(recent_attempts) as attempts, locked_until > now() as locked from sign_in_throttle where email = ${email}`;
  t.deepEqual({ ...throttle }, { attempts: 10, locked: true });
  const storeId = await newStore();
  const invited = await accounts.inviteMember({ storeId, email });
  const accepted = await accounts.acceptInvitation({ token: invited.invitationToken, password: PASSWORD });
  t.truthy(accepted.session!.token, "accepting an invitation is not blocked by the lock, and lifts it");
  t.truthy(await accounts.signIn({ email, password: PASSWORD }));
});

test("a session ends after 12 h idle or 7 days, whichever first; use refreshes it at most once a minute", async (t) => {
  const storeId = await newStore();
  const { token } = await activeMember(storeId);
  const hash = sha256(token);
  const lastSeen = async () => (await sql<{ last_seen_at: Date }[]>`select last_seen_at from sessions where token_hash = ${hash}`)[0]!.last_seen_at;

  await sql`update sessions set last_seen_at = now() - interval '30 seconds' where token_hash = ${hash}`;
  const before = await lastSeen();
  await accounts.resolveSession({ token });
  t.deepEqual(await lastSeen(), before, "seen 30 s ago: not written again");

  await sql`update sessions set last_seen_at = now() - interval '11 hours 59 minutes' where token_hash = ${hash}`;
  await accounts.resolveSession({ token });
  t.true(Date.now() - (await lastSeen()).getTime() < 60_000, "use moves last_seen_at to now");

  await sql`update sessions set last_seen_at = now() - interval '12 hours 1 second' where token_hash = ${hash}`;
  await failsAuthentication(t, accounts.resolveSession({ token }), "idle 12 h");

  const busy = await activeMember(storeId);
  const busyHash = sha256(busy.token);
  await sql`update sessions set created_at = now() - interval '6 days 23 hours', last_seen_at = now() where token_hash = ${busyHash}`;
  t.truthy(await accounts.resolveSession({ token: busy.token }), "6 days 23 hours old and in use");
  await sql`update sessions set created_at = now() - interval '7 days 1 second', last_seen_at = now() where token_hash = ${busyHash}`;
  await failsAuthentication(t, accounts.resolveSession({ token: busy.token }), "7 days old");
});

test("EndSession ends the session on the server; ending it again succeeds", async (t) => {
  const storeId = await newStore();
  const { token } = await activeMember(storeId);
  await accounts.endSession({ token });
  await failsAuthentication(t, accounts.resolveSession({ token }), "ended");
  t.is((await sql`select 1 from sessions where token_hash = ${sha256(token)}`).length, 0);
  await accounts.endSession({ token });
});

test("a removed member's sessions fail at once, and they cannot sign in while they belong to no store", async (t) => {
  const storeId = await newStore();
  const { email, memberId, token } = await activeMember(storeId);
  const second = await accounts.signIn({ email, password: PASSWORD });
  const removed = await accounts.removeMember({ storeId, memberId });
  t.is(removed.member!.email, email);
  await failsAuthentication(t, accounts.resolveSession({ token }), "first session");
  await failsAuthentication(t, accounts.resolveSession({ token: second.session!.token }), "second session");
  await failsAuthentication(t, accounts.signIn({ email, password: PASSWORD }), "member of no store");
  t.deepEqual((await accounts.listMembers({ storeId })).members, []);
  const otherStore = await newStore();
  const stranger = await accounts.inviteMember({ storeId: otherStore, email: newEmail() });
  const error = ConnectError.from(await t.throwsAsync(accounts.removeMember({ storeId, memberId: stranger.member!.id })));
  t.is(error.code, Code.NotFound);
});

test("a member of two stores sees both, and removal from one leaves the other", async (t) => {
  const a = await newStore("Toko Anggrek");
  const b = await newStore("Toko Bambu");
  const { email, memberId } = await activeMember(a);
  const second = await accounts.inviteMember({ storeId: b, email });
  t.is(second.member!.id, memberId, "the same account");
  t.is(second.member!.status, "invited", "store b is told nothing of the account");
  t.deepEqual((await accounts.listMembers({ storeId: b })).members, [], "nor is it a member of b before accepting");
  await accounts.acceptInvitation({ token: second.invitationToken, password: PASSWORD });
  const { session } = await accounts.signIn({ email, password: PASSWORD });
  t.deepEqual((await accounts.resolveSession({ token: session!.token })).stores.map((s) => [s.id, s.name]), [
    [a, "Toko Anggrek"],
    [b, "Toko Bambu"],
  ]);
  for (const storeId of [a, b]) {
    const [latest] = (await accounts.listAudit({ storeId, limit: 1 })).entries;
    t.like(latest, { actor: email, action: "member.signed_in", target: `member:${email}` });
  }
  await accounts.removeMember({ storeId: a, memberId });
  const signedIn = await accounts.signIn({ email, password: PASSWORD });
  t.deepEqual((await accounts.resolveSession({ token: signedIn.session!.token })).stores.map((s) => s.id), [b]);
  t.deepEqual((await accounts.listMembers({ storeId: b })).members.map((m) => m.email), [email]);
});

test("audit: the entries the catalog writes with its changes list newest first, per store", async (t) => {
  const storeId = await newStore();
  const other = await newStore();
  const { apiKey } = await stores.createApiKey({ storeId, name: "ci" });
  await accounts.inviteMember({ storeId, email: "Siti@Example.co.id", role: "viewer" });
  await stores.createApiKey({ storeId: other, name: "elsewhere" });
  const { entries } = await accounts.listAudit({ storeId });
  t.deepEqual(entries.map((e) => [e.actor, e.action, e.target, e.storeId]), [
    ["operator", "member.invited", "member:siti@example.co.id", storeId],
    ["operator", "key.created", `key:${apiKey!.id}`, storeId],
    ["operator", "store.created", `store:${storeId}`, storeId],
  ]);
  t.true(timestampDate(entries[0]!.at!).getTime() >= timestampDate(entries[1]!.at!).getTime());

  await sql`insert into audit_log (store_id, actor, action, target) select ${storeId}, 'operator', 'key.created', 'bulk:' || n from generate_series(1, 600) n`;
  t.is((await accounts.listAudit({ storeId })).entries.length, 100);
  t.is((await accounts.listAudit({ storeId, limit: 500 })).entries.length, 500);
  t.is((await accounts.listAudit({ storeId, limit: 500 })).entries[0]!.target, "bulk:600", "rows written in one statement still list newest first");
});

test("UpdateStoreSettings is stored: GetStore and the next reader see it", async (t) => {
  const storeId = await newStore();
  await stores.updateStoreSettings({
    storeId,
    bankAccount: { bankName: "Bank Negara Indonesia", bankCode: "BNI", accountNumber: "0099887766", accountHolder: "Toko Maju" },
    redirects: { successUrl: "https://maju.example/ok", returnUrl: "https://maju.example/back", errorUrl: "" },
  });
  const { store } = await stores.getStore({ id: storeId });
  t.like(store!.bankAccount, { bankName: "Bank Negara Indonesia", bankCode: "BNI", accountNumber: "0099887766", accountHolder: "Toko Maju" });
  t.like(store!.redirects, { successUrl: "https://maju.example/ok", returnUrl: "https://maju.example/back", errorUrl: "" });
  const [row] = await sql`select bank_code, error_url from stores where id = ${storeId}`;
  t.deepEqual({ ...row }, { bank_code: "BNI", error_url: null });

  await stores.updateStoreSettings({ storeId, redirects: { errorUrl: "https://maju.example/err" } });
  const after = (await stores.getStore({ id: storeId })).store!;
  t.is(after.bankAccount, undefined, "the bank account is replaced by none");
  t.like(after.redirects, { successUrl: "", returnUrl: "", errorUrl: "https://maju.example/err" });
});

test("roles: existing and new memberships carry one; two concurrent demotions of a store's two owners leave one owner", async (t) => {
  const storeId = await newStore();
  const first = await activeMember(storeId, newEmail(), PASSWORD, "owner");
  const second = await activeMember(storeId, newEmail(), PASSWORD, "owner");
  const [column] = await sql<{ column_default: string }[]>`
    select column_default from information_schema.columns where table_schema = ${CATALOG_SCHEMA} and table_name = 'memberships' and column_name = 'role'`;
  t.regex(column!.column_default, /'owner'/, "members from before roles are owners");
  await t.throwsAsync(sql`update memberships set role = 'admin' where store_id = ${storeId}`, { message: /check/ });
  t.deepEqual((await accounts.resolveSession({ token: first.token })).stores.map((s) => s.role), ["owner"]);

  const results = await Promise.allSettled([
    accounts.setMemberRole({ storeId, memberId: first.memberId, role: "viewer" }),
    accounts.setMemberRole({ storeId, memberId: second.memberId, role: "support" }),
  ]);
  t.is(results.filter((r) => r.status === "fulfilled").length, 1, "one demotion passes");
  const refused = results.find((r): r is PromiseRejectedResult => r.status === "rejected")!;
  t.is(ConnectError.from(refused.reason).code, Code.FailedPrecondition);
  const roles = (await accounts.listMembers({ storeId })).members.map((m) => m.role).sort();
  t.is(roles.filter((role) => role === "owner").length, 1, "the store keeps one owner");
  const changes = (await accounts.listAudit({ storeId })).entries.filter((e) => e.action === "member.role_changed");
  t.is(changes.length, 1, "only the change that happened is audited");

  // Removing the one owner left is refused too, and so are both at once.
  const owner = (await accounts.listMembers({ storeId })).members.find((m) => m.role === "owner")!;
  const error = ConnectError.from(await t.throwsAsync(accounts.removeMember({ storeId, memberId: owner.id })));
  t.is(error.code, Code.FailedPrecondition);
  await accounts.setMemberRole({ storeId, memberId: first.memberId === owner.id ? second.memberId : first.memberId, role: "owner" });
  const removals = await Promise.allSettled([
    accounts.removeMember({ storeId, memberId: first.memberId }),
    accounts.removeMember({ storeId, memberId: second.memberId }),
  ]);
  t.is(removals.filter((r) => r.status === "fulfilled").length, 1, "one removal passes");
  t.is((await accounts.listMembers({ storeId })).members.filter((m) => m.role === "owner").length, 1);
});

test("a catalog change and its audit entry are one transaction: no actor, nothing written", async (t) => {
  const storeId = await newStore();
  const bare = createRpcChannel(`http://127.0.0.1:${service.port}`, { timeoutMs: 20_000, internalToken: TEST_INTERNAL_TOKEN });
  try {
    const error = ConnectError.from(await t.throwsAsync(bare.client(StoreService).createApiKey({ storeId, name: "x" })));
    t.is(error.code, Code.PermissionDenied);
    t.is((await bare.client(StoreService).getStore({ id: storeId })).store!.id, storeId, "reads need no actor");
  } finally {
    bare.close();
  }
  const [counted] = await sql<{ keys: number }[]>`select count(*)::int as keys from api_keys where store_id = ${storeId}`;
  t.is(counted!.keys, 0);
  const { apiKey } = await stores.createApiKey({ storeId, name: "ci" });
  const rows = await sql`select actor, action, target from audit_log where store_id = ${storeId} and action like 'key.%'`;
  t.deepEqual(rows.map((r) => ({ ...r })), [{ actor: "operator", action: "key.created", target: `key:${apiKey!.id}` }]);
});

const resetTokenFor = (email: string) =>
  decodeURIComponent(service.mails.filter((mail) => mail.to === email && mail.kind === "password-reset").at(-1)?.text.match(/reset-password\/(\S+)/)?.[1] ?? "");

test("team: pending invitations list and revoke in SQL; links say pending, used or expired; spent ones outlive the sweep", async (t) => {
  const storeId = await newStore();
  const a = await accounts.inviteMember({ storeId, email: newEmail(), role: "viewer" });
  const b = await accounts.inviteMember({ storeId, email: newEmail(), role: "support" });
  t.deepEqual((await accounts.listInvitations({ storeId })).invitations.map((i) => [i.email, i.role]), [
    [b.member!.email, "support"],
    [a.member!.email, "viewer"],
  ]);
  const [forB] = (await accounts.listInvitations({ storeId })).invitations;
  await accounts.revokeInvitation({ storeId, invitationId: forB!.id });
  t.is((await accounts.checkLink({ kind: "invitation", token: b.invitationToken })).state, "unknown");
  t.deepEqual((await accounts.listInvitations({ storeId })).invitations.map((i) => i.email), [a.member!.email]);
  t.false((await accounts.listMembers({ storeId })).members.some((m) => m.email === b.member!.email), "a pending invitation made no member");

  await accounts.acceptInvitation({ token: a.invitationToken, password: PASSWORD });
  t.is((await accounts.checkLink({ kind: "invitation", token: a.invitationToken })).state, "used");
  const c = await accounts.inviteMember({ storeId, email: newEmail(), role: "viewer" });
  await sql`update invitations set created_at = created_at - interval '73 hours', expires_at = expires_at - interval '73 hours' where token_hash = ${sha256(c.invitationToken)}`;
  t.is((await accounts.checkLink({ kind: "invitation", token: c.invitationToken })).state, "expired");
  // The sweep itself, called directly: sign-ins run it at most every 10 minutes per process.
  await pruneAccounts(sql, { idleSeconds: 3600, maxAgeSeconds: 3600, windowSeconds: 900, resetWindowSeconds: 3600, keepSpentSeconds: 30 * 24 * 3600 });
  t.is((await accounts.checkLink({ kind: "invitation", token: c.invitationToken })).state, "expired", "an expired link still says so after the sweep");
  await pruneAccounts(sql, { idleSeconds: 3600, maxAgeSeconds: 3600, windowSeconds: 900, resetWindowSeconds: 3600, keepSpentSeconds: 0 });
  t.is((await accounts.checkLink({ kind: "invitation", token: c.invitationToken })).state, "unknown", "past the keep, it is gone");
});

test("password reset on PostgreSQL: hashed link valid 1 h, limits per email, ten concurrent uses sign in once, other sessions end", async (t) => {
  const storeId = await newStore();
  const member = await activeMember(storeId);
  for (let i = 0; i < 4; i++) await accounts.requestPasswordReset({ email: member.email, clientAddress: `192.0.2.${i}` });
  t.is(service.mails.filter((mail) => mail.to === member.email && mail.kind === "password-reset").length, 3, "3 per email an hour");
  const token = resetTokenFor(member.email);
  const rows = await sql<{ token_hash: Buffer; minutes: number }[]>`
    select token_hash, extract(epoch from expires_at - created_at) / 60 as minutes from password_resets where member_id = ${member.memberId} and used_at is null`;
  t.is(rows.length, 1, "only the latest link is live");
  t.deepEqual(rows[0]!.token_hash, sha256(token));
  t.true(Math.abs(Number(rows[0]!.minutes) - 60) < 0.1);

  const uses = await Promise.allSettled(Array.from({ length: 10 }, () => accounts.resetPassword({ token, password: "sandi baru yang panjang" })));
  t.is(uses.filter((use) => use.status === "fulfilled").length, 1, "one use wins");
  await failsAuthentication(t, accounts.resolveSession({ token: member.token }), "the session from before the reset ended");
  const [signedIn] = await sql<{ last: Date | null }[]>`select last_signed_in_at as last from members where id = ${member.memberId}`;
  t.truthy(signedIn!.last);
  const { members } = await accounts.listMembers({ storeId });
  t.is(timestampDate(members.find((m) => m.id === member.memberId)!.lastSignedInAt!).getTime(), signedIn!.last!.getTime());
  await failsAuthentication(t, accounts.signIn({ email: member.email, password: PASSWORD }), "the old password");
  t.truthy((await accounts.signIn({ email: member.email, password: "sandi baru yang panjang" })).session);
});

test("an invitation to an existing account in SQL: no membership until accepted, the role waits on the invitation, revoking it ends no session", async (t) => {
  const own = await newStore("Toko Sendiri");
  const inviting = await newStore("Toko Pengundang");
  const { email, memberId, token } = await activeMember(own, newEmail(), PASSWORD, "owner");
  const first = await accounts.inviteMember({ storeId: inviting, email, role: "developer" });
  t.like(first.member, { id: memberId, status: "invited", role: "developer", lastSignedInAt: undefined });
  t.deepEqual((await accounts.listMembers({ storeId: inviting })).members, []);
  const [pending] = (await accounts.listInvitations({ storeId: inviting })).invitations;
  t.like(pending, { email, role: "developer" });
  await accounts.revokeInvitation({ storeId: inviting, invitationId: pending!.id });
  t.deepEqual((await accounts.resolveSession({ token })).stores.map((s) => [s.id, s.role]), [[own, "owner"]], "their session lives on");
  const [counted] = await sql<{ sessions: number }[]>`select count(*)::int as sessions from sessions where member_id = ${memberId}`;
  t.is(counted!.sessions, 1);

  const second = await accounts.inviteMember({ storeId: inviting, email, role: "support" });
  const accepted = await accounts.acceptInvitation({ token: second.invitationToken, password: PASSWORD });
  t.deepEqual((await accounts.resolveSession({ token: accepted.session!.token })).stores.map((s) => [s.id, s.role]), [
    [inviting, "support"],
    [own, "owner"],
  ]);
  t.deepEqual((await accounts.listMembers({ storeId: inviting })).members.map((m) => [m.email, m.role]), [[email, "support"]]);
  t.deepEqual((await accounts.listInvitations({ storeId: inviting })).invitations, []);
});
