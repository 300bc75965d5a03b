// AccountService and UpdateStoreSettings through the catalog's Connect routes in memory
// (createRouterTransport) over the real domain modules and a database of the test's own:
// argument errors, store scoping, and that every authentication failure looks the same.
// Time passes for expiry by moving the stored times back (passTime); the service over
// its gRPC port is accounts.test.ts's.
// Passwords are hashed at a small scrypt N, since these tests sign in a hundred times;
// the real parameters are passwords.unit.test.ts's and accounts.test.ts's.
import { OPERATOR } from "../../../common/actor.js";
import { actorInterceptor } from "../../../platform/rpc-client.js";
import test, { type ExecutionContext } from "ava";
import { randomUUID } from "node:crypto";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { AccountService } from "../../../gen/catalog/v1/account_pb.js";
import { StoreService } from "../../../gen/catalog/v1/catalog_pb.js";
import { hashPassword, needsRehash, SCRYPT_PARAMS, verifyPassword } from "../../../services/catalog/accounts/passwords.js";
import { hashToken } from "../../../services/catalog/accounts/tokens.js";
import { createCatalogDomain } from "../../../services/catalog/domain.js";
import { createCatalogRoutes } from "../../../services/catalog/routes.js";
import type { Sql } from "../../../platform/db.js";
import { createLogger } from "../../../platform/logger.js";
import { catalogDatabase, passTime } from "../../helpers/catalog-router.js";
import { TEST_SCRYPT } from "../../helpers/scrypt.js";

const PASSWORD = "kata sandi rahasia";
const HOUR = 3600;

/** 1 MiB and a few milliseconds a hash; an unknown email still costs the real parameters' dummy hash. */

async function setup(t: ExecutionContext, scryptParams = TEST_SCRYPT) {
  const sql = await catalogDatabase(t);
  const logger = createLogger("test", "silent");
  const domain = createCatalogDomain({ sql, scryptParams, logger });
  // Every call is the operator's, as from store-admin; roles are catalog-roles.router.test.ts's.
  const transport = createRouterTransport(createCatalogRoutes(domain), { transport: { interceptors: [actorInterceptor(OPERATOR)] } });
  return { sql, stores: createClient(StoreService, transport), accounts: createClient(AccountService, transport) };
}

type Clients = Awaited<ReturnType<typeof setup>>;

/** What is stored for a member: the password hash, never the password. */
async function passwordHashOf(sql: Sql, email: string): Promise<string | null | undefined> {
  const [row] = await sql<{ password_hash: string | null }[]>`select password_hash from members where email = ${email}`;
  return row?.password_hash;
}

async function rejects(t: ExecutionContext, call: Promise<unknown>, code: Code, message?: RegExp): Promise<ConnectError> {
  const error = ConnectError.from(await t.throwsAsync(call));
  t.is(error.code, code, `expected ${Code[code]}, got ${Code[error.code]}: ${error.rawMessage}`);
  if (message) t.regex(error.rawMessage, message);
  return error;
}

/** Every failure must be this exact error, so a caller cannot tell the reasons apart. */
async function failsAuthentication(t: ExecutionContext, call: Promise<unknown>, why: string) {
  const error = ConnectError.from(await t.throwsAsync(call, undefined, why));
  t.is(error.code, Code.Unauthenticated, why);
  t.is(error.rawMessage, "invalid credentials", why);
  t.deepEqual(error.details, [], why);
}

async function newStore({ stores }: Clients, name = "Toko Akun") {
  const { store } = await stores.createStore({ name });
  return store!.id;
}

/** A member of the store who has accepted the invitation, and their first session's token. */
async function activeMember(clients: Clients, storeId: string, email = "siti@example.co.id", password = PASSWORD) {
  const invited = await clients.accounts.inviteMember({ storeId, email });
  const accepted = await clients.accounts.acceptInvitation({ token: invited.invitationToken, password });
  return { memberId: invited.member!.id, token: accepted.session!.token };
}

// Invitations

test("InviteMember: an invited member with a normalized email, a one-time token kept only as a hash, valid 72 h", async (t) => {
  const clients = await setup(t);
  const storeId = await newStore(clients);
  const { member, invitationToken, expiresAt } = await clients.accounts.inviteMember({ storeId, email: "  Siti.Rahma@Example.CO.ID " });
  t.like(member, { email: "siti.rahma@example.co.id", status: "invited" });
  t.regex(member!.id, /^[0-9a-f-]{36}$/);
  t.regex(invitationToken, /^[A-Za-z0-9_-]{43}$/);
  const hours = (timestampDate(expiresAt!).getTime() - timestampDate(member!.createdAt!).getTime()) / 3_600_000;
  t.true(Math.abs(hours - 72) < 0.01, `${hours} h`);
  // Every token hash stored: invitations, password resets and sessions.
  const stored = await clients.sql<{ token_hash: Buffer }[]>`
    select token_hash from invitations union all select token_hash from password_resets union all select token_hash from sessions`;
  t.deepEqual(stored.map((row) => row.token_hash), [hashToken(invitationToken)], "only the hash is kept");

  const again = await clients.accounts.inviteMember({ storeId, email: "siti.rahma@example.co.id" });
  t.is(again.member!.id, member!.id, "one account per email");
  t.not(again.invitationToken, invitationToken);
  await failsAuthentication(t, clients.accounts.acceptInvitation({ token: invitationToken, password: PASSWORD }), "a re-invitation replaces the earlier link");
  t.is((await clients.accounts.acceptInvitation({ token: again.invitationToken, password: PASSWORD })).member!.status, "active");
});

test("InviteMember: INVALID_ARGUMENT naming store_id or email; NOT_FOUND for an unknown store", async (t) => {
  const clients = await setup(t);
  const storeId = await newStore(clients);
  await rejects(t, clients.accounts.inviteMember({ storeId: "toko-1", email: "a@example.com" }), Code.InvalidArgument, /^store_id must be a UUID$/);
  const badEmails = [
    "",
    "   ",
    "siti",
    "siti@",
    "@example.com",
    "siti@example",
    "siti@@example.com",
    "siti rahma@example.com",
    "siti@exa mple.com",
    "siti@-example.com",
    "siti@example..com",
    '"siti"@example.com',
    `${"a".repeat(65)}@example.com`,
    // 255 characters, every part within its own limit.
    `${"a".repeat(64)}@${"b".repeat(60)}.${"c".repeat(60)}.${"d".repeat(60)}.${"e".repeat(3)}.com`,
  ];
  for (const email of badEmails) {
    await rejects(t, clients.accounts.inviteMember({ storeId, email }), Code.InvalidArgument, /^email must be an email address of at most 254 characters$/);
  }
  const longest = `${"a".repeat(64)}@${"b".repeat(60)}.${"c".repeat(60)}.${"d".repeat(60)}.${"e".repeat(2)}.com`;
  t.is(longest.length, 254);
  t.is((await clients.accounts.inviteMember({ storeId, email: longest })).member!.email, longest);
  for (const email of ["budi+toko@example.co.id", "o'brien@mail.example", "kasir@toko-batik.id", "ani@tokó.example"]) {
    t.is((await clients.accounts.inviteMember({ storeId, email })).member!.email, email);
  }
  await rejects(t, clients.accounts.inviteMember({ storeId: randomUUID(), email: "a@example.com" }), Code.NotFound);
  t.is((await clients.accounts.listInvitations({ storeId })).invitations.length, 5, "refused invitations added nobody");
  t.deepEqual((await clients.accounts.listMembers({ storeId })).members, [], "and the pending ones no member");
});

test("InviteMember: the decomposed form of a member's email (e + combining accent) is the same member, in any store; sign-in and the audit log agree", async (t) => {
  const clients = await setup(t);
  const first = await newStore(clients, "Toko Satu");
  const second = await newStore(clients, "Toko Dua");
  const composed = "jos\u00e9@caf\u00e9.example";
  const decomposed = "JOSE\u0301@CAFE\u0301.EXAMPLE";
  const { memberId } = await activeMember(clients, first, composed);

  const again = await clients.accounts.inviteMember({ storeId: first, email: decomposed });
  t.like(again.member, { id: memberId, email: composed, status: "active" });
  const elsewhere = await clients.accounts.inviteMember({ storeId: second, email: decomposed });
  t.is(elsewhere.member!.id, memberId, "one account per mailbox, however it is typed");
  const [{ members }] = await clients.sql<[{ members: number }]>`select count(*)::int as members from members`;
  t.is(members, 1);

  t.is((await clients.accounts.signIn({ email: decomposed, password: PASSWORD })).member!.id, memberId);
  const [signedIn] = (await clients.accounts.listAudit({ storeId: first, limit: 1 })).entries;
  t.like(signedIn, { actor: composed, action: "member.signed_in" });
});

test("AcceptInvitation: the password rule comes first; then a bad, used or expired token fails like every other authentication", async (t) => {
  const clients = await setup(t);
  const storeId = await newStore(clients);
  const { invitationToken } = await clients.accounts.inviteMember({ storeId, email: "ani@example.com" });

  await rejects(t, clients.accounts.acceptInvitation({ token: "made-up", password: "short" }), Code.InvalidArgument, /^password must be 12 to 1024 characters$/);
  await rejects(t, clients.accounts.acceptInvitation({ token: invitationToken, password: "elevenchars" }), Code.InvalidArgument, /password/);
  await rejects(t, clients.accounts.acceptInvitation({ token: invitationToken, password: "x".repeat(1025) }), Code.InvalidArgument, /password/);
  await failsAuthentication(t, clients.accounts.acceptInvitation({ token: "made-up", password: PASSWORD }), "malformed token");
  await failsAuthentication(t, clients.accounts.acceptInvitation({ token: invitationToken.replace(/^./, (c) => (c === "A" ? "B" : "A")), password: PASSWORD }), "unknown token");

  const { member, session } = await clients.accounts.acceptInvitation({ token: invitationToken, password: PASSWORD });
  t.like(member, { email: "ani@example.com", status: "active" });
  t.regex(session!.token, /^[A-Za-z0-9_-]{43}$/);
  t.true((await passwordHashOf(clients.sql, "ani@example.com"))!.startsWith("scrypt$"));
  t.false((await passwordHashOf(clients.sql, "ani@example.com"))!.includes(PASSWORD));
  await failsAuthentication(t, clients.accounts.acceptInvitation({ token: invitationToken, password: PASSWORD }), "used token");

  const later = await clients.accounts.inviteMember({ storeId, email: "budi@example.com" });
  await passTime(clients.sql, 72 * HOUR + 1);
  await failsAuthentication(t, clients.accounts.acceptInvitation({ token: later.invitationToken, password: PASSWORD }), "expired token");
  t.deepEqual((await clients.accounts.listMembers({ storeId })).members.map((m) => m.email), ["ani@example.com"], "an expired invitation made no member");
});

test("AcceptInvitation by an active member invited into a second store: the new password works, the old one and old sessions end", async (t) => {
  const clients = await setup(t);
  const first = await newStore(clients, "Toko Satu");
  const second = await newStore(clients, "Toko Dua");
  const { token: oldSession } = await activeMember(clients, first, "dewi@example.com", "password lama sekali");
  const { invitationToken, member } = await clients.accounts.inviteMember({ storeId: second, email: "dewi@example.com" });
  t.is(member!.status, "invited", "the inviting store is told nothing of the account");
  t.deepEqual((await clients.accounts.listMembers({ storeId: second })).members, [], "no member of the second store before accepting");
  const accepted = await clients.accounts.acceptInvitation({ token: invitationToken, password: "password baru sekali" });
  t.deepEqual(
    (await clients.accounts.resolveSession({ token: accepted.session!.token })).stores.map((s) => s.name),
    ["Toko Dua", "Toko Satu"],
  );
  await failsAuthentication(t, clients.accounts.resolveSession({ token: oldSession }), "sessions before the password change end");
  await failsAuthentication(t, clients.accounts.signIn({ email: "dewi@example.com", password: "password lama sekali" }), "old password");
  t.truthy(await clients.accounts.signIn({ email: "dewi@example.com", password: "password baru sekali" }));
});

// Sign-in and sessions

test("SignIn: unknown email, malformed email, no password yet, wrong password and empty password all fail the same way", async (t) => {
  const clients = await setup(t);
  const storeId = await newStore(clients);
  await activeMember(clients, storeId, "siti@example.co.id");
  await clients.accounts.inviteMember({ storeId, email: "baru@example.co.id" });
  await failsAuthentication(t, clients.accounts.signIn({ email: "nobody@example.co.id", password: PASSWORD }), "unknown email");
  await failsAuthentication(t, clients.accounts.signIn({ email: "not an email", password: PASSWORD }), "malformed email");
  await failsAuthentication(t, clients.accounts.signIn({ email: "baru@example.co.id", password: PASSWORD }), "invited, no password yet");
  await failsAuthentication(t, clients.accounts.signIn({ email: "siti@example.co.id", password: `${PASSWORD}!` }), "wrong password");
  await failsAuthentication(t, clients.accounts.signIn({ email: "siti@example.co.id", password: "" }), "empty password");

  const signedInAt = Date.now();
  const { member, session } = await clients.accounts.signIn({ email: " SITI@example.co.id ", password: PASSWORD });
  t.like(member, { email: "siti@example.co.id", status: "active" });
  const hours = (timestampDate(session!.expiresAt!).getTime() - signedInAt) / 3_600_000;
  t.true(hours > 11.9 && hours < 12.1, "a new session ends after 12 h unless used");
});

test("SignIn: 10 failures lock the email for 15 minutes, even for the right password; other emails are unaffected", async (t) => {
  const clients = await setup(t);
  const storeId = await newStore(clients);
  await activeMember(clients, storeId, "siti@example.co.id");
  await activeMember(clients, storeId, "budi@example.co.id");
  for (let i = 0; i < 10; i++) {
    await failsAuthentication(t, clients.accounts.signIn({ email: "siti@example.co.id", password: "wrong password!" }), `failure ${i + 1}`);
  }
  await failsAuthentication(t, clients.accounts.signIn({ email: "siti@example.co.id", password: PASSWORD }), "locked");
  t.truthy(await clients.accounts.signIn({ email: "budi@example.co.id", password: PASSWORD }), "the lock is per email");
  await passTime(clients.sql, 14 * 60);
  await failsAuthentication(t, clients.accounts.signIn({ email: "siti@example.co.id", password: PASSWORD }), "still locked after 14 minutes");
  await passTime(clients.sql, 60);
  t.truthy(await clients.accounts.signIn({ email: "siti@example.co.id", password: PASSWORD }), "unlocked after 15 minutes");
});

test("SignIn: a success clears the count; failures older than 15 minutes do not count", async (t) => {
  const clients = await setup(t);
  const storeId = await newStore(clients);
  await activeMember(clients, storeId, "siti@example.co.id");
  const fail = () => failsAuthentication(t, clients.accounts.signIn({ email: "siti@example.co.id", password: "wrong password!" }), "wrong");
  for (let i = 0; i < 9; i++) await fail();
  await clients.accounts.signIn({ email: "siti@example.co.id", password: PASSWORD });
  for (let i = 0; i < 9; i++) await fail();
  t.truthy(await clients.accounts.signIn({ email: "siti@example.co.id", password: PASSWORD }), "9 + 9 failures around a success lock nothing");
  for (let i = 0; i < 5; i++) await fail();
  await passTime(clients.sql, 15 * 60 + 1);
  for (let i = 0; i < 9; i++) await fail();
  t.truthy(await clients.accounts.signIn({ email: "siti@example.co.id", password: PASSWORD }), "5 old + 9 recent failures lock nothing");
});

test("SignIn with a hash of the old scrypt parameters (N = 2^15) stores one of the same password at N = 2^17; a failure or a current hash changes nothing", async (t) => {
  const clients = await setup(t, SCRYPT_PARAMS);
  const storeId = await newStore(clients);
  const email = "lama@example.com";
  await activeMember(clients, storeId, email);
  const old = await hashPassword(PASSWORD, { N: 2 ** 15, r: 8, p: 1 });
  // As an older version of the service would have stored it.
  await clients.sql`update members set password_hash = ${old} where email = ${email}`;

  await failsAuthentication(t, clients.accounts.signIn({ email, password: "wrong password!!" }), "wrong password");
  t.is(await passwordHashOf(clients.sql, email), old, "a failed sign-in rewrites nothing");

  await clients.accounts.signIn({ email, password: PASSWORD });
  const upgraded = (await passwordHashOf(clients.sql, email))!;
  t.regex(upgraded, /^scrypt\$131072\$8\$1\$/);
  t.false(needsRehash(upgraded));
  t.true(await verifyPassword(PASSWORD, upgraded));

  await clients.accounts.signIn({ email, password: PASSWORD });
  t.is(await passwordHashOf(clients.sql, email), upgraded, "a current hash is left alone");
});

test("SignIn records member.signed_in, by the member, in each of their stores' audit logs", async (t) => {
  const clients = await setup(t);
  const a = await newStore(clients, "Toko A");
  const b = await newStore(clients, "Toko B");
  const other = await newStore(clients, "Toko Lain");
  await activeMember(clients, a, "siti@example.co.id");
  await activeMember(clients, b, "siti@example.co.id");
  await clients.accounts.signIn({ email: "siti@example.co.id", password: PASSWORD });
  for (const storeId of [a, b]) {
    const [latest] = (await clients.accounts.listAudit({ storeId })).entries;
    t.like(latest, { storeId, actor: "siti@example.co.id", action: "member.signed_in", target: "member:siti@example.co.id" });
  }
  // The other store holds only its own creation: no sign-in of someone who is not its member.
  t.deepEqual((await clients.accounts.listAudit({ storeId: other })).entries.map((e) => e.action), ["store.created"]);
});

test("ResolveSession: member, stores and a stable session id; refreshed at most once a minute; idle 12 h or ended fails", async (t) => {
  const clients = await setup(t);
  const storeId = await newStore(clients, "Toko Sesi");
  const { memberId, token } = await activeMember(clients, storeId);
  // xmin changes with every write of the row, even one that sets the same values.
  const sessionRow = async () =>
    (await clients.sql<{ xmin: string; last_seen_at: Date }[]>`select xmin::text, last_seen_at from sessions where token_hash = ${hashToken(token)}`)[0]!;
  const signedIn = await sessionRow();
  const first = await clients.accounts.resolveSession({ token });
  t.like(first.member, { id: memberId, email: "siti@example.co.id", status: "active" });
  t.deepEqual(first.stores.map((s) => ({ id: s.id, name: s.name })), [{ id: storeId, name: "Toko Sesi" }]);
  t.regex(first.sessionId, /^[0-9a-f-]{36}$/);
  t.not(first.sessionId, token);
  t.is((await clients.accounts.resolveSession({ token })).sessionId, first.sessionId);
  t.deepEqual(await sessionRow(), signedIn, "within a minute of sign-in: reads only");
  await passTime(clients.sql, 61);
  const aMinuteOn = await sessionRow();
  await clients.accounts.resolveSession({ token });
  const touched = await sessionRow();
  t.true(touched.last_seen_at.getTime() > aMinuteOn.last_seen_at.getTime(), "a minute later: last seen is written");
  await clients.accounts.resolveSession({ token });
  t.deepEqual(await sessionRow(), touched, "and then not again within the minute");

  await passTime(clients.sql, 11 * HOUR);
  await clients.accounts.resolveSession({ token });
  await passTime(clients.sql, 11 * HOUR);
  t.truthy(await clients.accounts.resolveSession({ token }), "use within 12 h keeps it alive");
  await passTime(clients.sql, 12 * HOUR + 1);
  await failsAuthentication(t, clients.accounts.resolveSession({ token }), "idle 12 h");

  const again = await clients.accounts.signIn({ email: "siti@example.co.id", password: PASSWORD });
  await clients.accounts.endSession({ token: again.session!.token });
  await failsAuthentication(t, clients.accounts.resolveSession({ token: again.session!.token }), "ended");
  await clients.accounts.endSession({ token: again.session!.token });
  await clients.accounts.endSession({ token: "not-a-token" });
  await failsAuthentication(t, clients.accounts.resolveSession({ token: "" }), "empty token");
  await failsAuthentication(t, clients.accounts.resolveSession({ token: "x".repeat(43) }), "unknown token");
});

test("ResolveSession: a session ends 7 days after sign-in however busy", async (t) => {
  const clients = await setup(t);
  const storeId = await newStore(clients);
  const { token } = await activeMember(clients, storeId);
  for (let hours = 0; hours < 7 * 24 - 6; hours += 6) {
    await passTime(clients.sql, 6 * HOUR);
    await clients.accounts.resolveSession({ token });
  }
  await passTime(clients.sql, 6 * HOUR);
  await failsAuthentication(t, clients.accounts.resolveSession({ token }), "7 days old");
});

// Members of a store

test("ListMembers and RemoveMember are scoped to the store; removal ends the member's sessions at once", async (t) => {
  const clients = await setup(t);
  const storeId = await newStore(clients, "Toko Satu");
  const otherId = await newStore(clients, "Toko Dua");
  const siti = await activeMember(clients, storeId, "siti@example.co.id");
  const ani = await clients.accounts.inviteMember({ storeId, email: "ani@example.co.id" });
  const outsider = await clients.accounts.inviteMember({ storeId: otherId, email: "budi@example.co.id" });

  const listed = await clients.accounts.listMembers({ storeId });
  t.deepEqual(listed.members.map((m) => [m.email, m.status]), [["siti@example.co.id", "active"]], "an invitation is no member until accepted");
  await clients.accounts.acceptInvitation({ token: ani.invitationToken, password: PASSWORD });
  t.deepEqual((await clients.accounts.listMembers({ storeId })).members.map((m) => [m.email, m.status]), [
    ["ani@example.co.id", "active"],
    ["siti@example.co.id", "active"],
  ]);
  await rejects(t, clients.accounts.listMembers({ storeId: "x" }), Code.InvalidArgument, /^store_id must be a UUID$/);
  await rejects(t, clients.accounts.listMembers({ storeId: randomUUID() }), Code.NotFound);

  await rejects(t, clients.accounts.removeMember({ storeId, memberId: outsider.member!.id }), Code.NotFound, /not found/);
  t.deepEqual((await clients.accounts.listInvitations({ storeId: otherId })).invitations.map((i) => i.email), ["budi@example.co.id"], "the other store's invitation stays");
  await rejects(t, clients.accounts.removeMember({ storeId, memberId: "nope" }), Code.InvalidArgument, /^member_id must be a UUID$/);
  await rejects(t, clients.accounts.removeMember({ storeId: "nope", memberId: siti.memberId }), Code.InvalidArgument, /^store_id must be a UUID$/);
  await rejects(t, clients.accounts.removeMember({ storeId: randomUUID(), memberId: siti.memberId }), Code.NotFound);

  const { member } = await clients.accounts.removeMember({ storeId, memberId: siti.memberId });
  t.is(member!.email, "siti@example.co.id");
  await failsAuthentication(t, clients.accounts.resolveSession({ token: siti.token }), "removed member's session");
  await failsAuthentication(t, clients.accounts.signIn({ email: "siti@example.co.id", password: PASSWORD }), "member of no store");
  await rejects(t, clients.accounts.removeMember({ storeId, memberId: siti.memberId }), Code.NotFound, /not found/);

  const back = await clients.accounts.inviteMember({ storeId, email: "siti@example.co.id" });
  t.is(back.member!.status, "invited", "a member removed from every store starts over");
  await failsAuthentication(t, clients.accounts.signIn({ email: "siti@example.co.id", password: PASSWORD }), "old password forgotten");
});

test("RemoveMember: an unused invitation of the removed member stops working", async (t) => {
  const clients = await setup(t);
  const storeId = await newStore(clients);
  await activeMember(clients, storeId, "siti@example.co.id");
  const { memberId } = await activeMember(clients, storeId, "ani@example.co.id");
  const { invitationToken } = await clients.accounts.inviteMember({ storeId, email: "ani@example.co.id" });
  await clients.accounts.removeMember({ storeId, memberId });
  await failsAuthentication(t, clients.accounts.acceptInvitation({ token: invitationToken, password: PASSWORD }), "invitation of a removed member");
});

// Audit log

test("ListAudit: the entries the catalog writes with its changes, newest first, per store, limit 100 by default and 500 at most", async (t) => {
  const clients = await setup(t);
  const storeId = await newStore(clients);
  const otherId = await newStore(clients);
  const { apiKey } = await clients.stores.createApiKey({ storeId, name: "k1" });
  await clients.accounts.inviteMember({ storeId, email: " Siti@Example.co.id" });
  await clients.stores.createApiKey({ storeId: otherId, name: "k9" });
  const { entries } = await clients.accounts.listAudit({ storeId });
  t.deepEqual(entries.map((e) => [e.actor, e.action, e.target]), [
    ["operator", "member.invited", "member:siti@example.co.id"],
    ["operator", "key.created", `key:${apiKey!.id}`],
    ["operator", "store.created", `store:${storeId}`],
  ]);
  t.like(entries[0], { storeId });
  t.truthy(entries[0]!.at);
  t.is((await clients.accounts.listAudit({ storeId, limit: 1 })).entries[0]!.action, "member.invited");

  for (let i = 0; i < 120; i++) await clients.stores.createApiKey({ storeId, name: `n${i}` });
  t.is((await clients.accounts.listAudit({ storeId })).entries.length, 100);
  t.is((await clients.accounts.listAudit({ storeId, limit: 500 })).entries.length, 123);
  await rejects(t, clients.accounts.listAudit({ storeId, limit: 501 }), Code.InvalidArgument, /^limit: must be from 1 to 500$/);
  await rejects(t, clients.accounts.listAudit({ storeId, limit: -1 }), Code.InvalidArgument, /limit/);
  await rejects(t, clients.accounts.listAudit({ storeId: "x" }), Code.InvalidArgument, /^store_id must be a UUID$/);
  await rejects(t, clients.accounts.listAudit({ storeId: randomUUID() }), Code.NotFound);
});

// Store settings

test("UpdateStoreSettings: replaces the bank account and redirects; the same checks as CreateStore", async (t) => {
  const clients = await setup(t);
  const { store } = await clients.stores.createStore({
    name: "Toko Pengaturan",
    bankAccount: { bankName: "BCA", bankCode: "BCA", accountNumber: "111", accountHolder: "Siti" },
    redirects: { successUrl: "https://shop.example/ok", errorUrl: "https://shop.example/err" },
  });
  const storeId = store!.id;
  const updated = await clients.stores.updateStoreSettings({
    storeId,
    bankAccount: { bankName: " Bank Mandiri ", bankCode: "MANDIRI", accountNumber: "1230000001", accountHolder: "Budi" },
    redirects: { successUrl: "https://new.example/thanks", returnUrl: "http://new.example/back" },
  });
  t.like(updated.store!.bankAccount, { bankName: "Bank Mandiri", bankCode: "MANDIRI", accountNumber: "1230000001", accountHolder: "Budi" });
  t.like(updated.store!.redirects, { successUrl: "https://new.example/thanks", returnUrl: "http://new.example/back", errorUrl: "" });
  t.like((await clients.stores.getStore({ id: storeId })).store, { name: "Toko Pengaturan", bankAccount: { bankName: "Bank Mandiri" } });

  const cleared = await clients.stores.updateStoreSettings({ storeId });
  t.is(cleared.store!.bankAccount, undefined, "no bank account given: none");
  t.like(cleared.store!.redirects, { successUrl: "", returnUrl: "", errorUrl: "" });

  const bank = { bankName: "BCA", bankCode: "BCA", accountNumber: "1", accountHolder: "A" };
  await rejects(t, clients.stores.updateStoreSettings({ storeId, bankAccount: { ...bank, bankCode: "" } }), Code.InvalidArgument, /^bank_code must be 1 to 20 characters$/);
  await rejects(t, clients.stores.updateStoreSettings({ storeId, bankAccount: { ...bank, accountHolder: "x".repeat(101) } }), Code.InvalidArgument, /^account_holder/);
  await rejects(t, clients.stores.updateStoreSettings({ storeId, redirects: { successUrl: "ftp://x.example/" } }), Code.InvalidArgument, /^success_url must be an absolute http\(s\) URL$/);
  await rejects(t, clients.stores.updateStoreSettings({ storeId, redirects: { errorUrl: "/relative" } }), Code.InvalidArgument, /^error_url/);
  await rejects(t, clients.stores.updateStoreSettings({ storeId: "x" }), Code.InvalidArgument, /^store_id must be a UUID$/);
  await rejects(t, clients.stores.updateStoreSettings({ storeId: randomUUID(), bankAccount: bank }), Code.NotFound);
  t.is((await clients.stores.getStore({ id: storeId })).store!.bankAccount, undefined, "refused updates changed nothing");
});
