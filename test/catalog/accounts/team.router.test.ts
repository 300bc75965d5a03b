// The Team page's and "Forgot password?"'s RPCs through the catalog's Connect routes in
// memory (docs/team.md), over a database of the test's own: invitations mailed, listed
// and revoked; one-time links that say what they are; password resets limited per email
// and per address that end every other session. Mail is captured as the mailer would
// send it; passwords are hashed at a small scrypt N (accounts.router.test.ts says why);
// time passes by moving the stored times back (passTime).
import test, { type ExecutionContext } from "ava";
import { randomUUID } from "node:crypto";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { OPERATOR, type Actor } from "../../../common/actor.js";
import { inviteUrl, passwordResetUrl } from "../../../common/dashboard-links.js";
import { AccountService } from "../../../gen/catalog/v1/account_pb.js";
import { StoreService } from "../../../gen/catalog/v1/catalog_pb.js";
import { createCatalogDomain } from "../../../services/catalog/domain.js";
import { createCatalogRoutes } from "../../../services/catalog/routes.js";
import { createLogger } from "../../../platform/logger.js";
import type { OutgoingMail } from "../../../platform/mail.js";
import { actorInterceptor } from "../../../platform/rpc-client.js";
import { catalogDatabase, passTime } from "../../helpers/catalog-router.js";
import { TEST_SCRYPT } from "../../helpers/scrypt.js";

const BASE = "https://shop.example.com";
const PASSWORD = "kata sandi rahasia";
const NEW_PASSWORD = "kata sandi yang baru";
const HOUR = 3600;

async function setup(t: ExecutionContext) {
  const sql = await catalogDatabase(t);
  const mails: OutgoingMail[] = [];
  const domain = createCatalogDomain({
    sql,
    scryptParams: TEST_SCRYPT,
    logger: createLogger("test", "silent"),
    mail: { mailer: { send: (mail) => mails.push(mail) }, publicBaseUrl: BASE },
  });
  const as: { actor: Actor } = { actor: OPERATOR };
  const transport = createRouterTransport(createCatalogRoutes(domain), { transport: { interceptors: [actorInterceptor(() => as.actor)] } });
  const stores = createClient(StoreService, transport);
  const accounts = createClient(AccountService, transport);
  const storeId = (await stores.createStore({ name: "Toko Tim" })).store!.id;
  /** The link in the latest mail to `to`, and that mail. */
  const lastMailTo = (to: string) => {
    const mail = mails.filter((m) => m.to === to).at(-1);
    return { mail, link: mail?.text.match(/https:\/\/\S+/)?.[0] };
  };
  /** An active member of the store with `role`, signed in once; the actor the dashboard states for them. */
  const activeMember = async (role: "owner" | "developer" | "support" | "viewer", email = `${role}.${randomUUID().slice(0, 8)}@example.co.id`) => {
    const saved = as.actor;
    as.actor = OPERATOR;
    const { member, invitationToken } = await accounts.inviteMember({ storeId, email, role });
    const { session } = await accounts.acceptInvitation({ token: invitationToken, password: PASSWORD });
    as.actor = saved;
    return { id: member!.id, email, token: session!.token, actor: { kind: "member", memberId: member!.id, role, email } as Actor };
  };
  /** Time passes for everything stored. */
  const advance = (seconds: number) => passTime(sql, seconds);
  return { sql, advance, mails, as, stores, accounts, storeId, lastMailTo, activeMember };
}

async function rejects(t: ExecutionContext, call: Promise<unknown>, code: Code, message?: RegExp) {
  const error = ConnectError.from(await t.throwsAsync(call));
  t.is(error.code, code, `expected ${Code[code]}, got ${Code[error.code]}: ${error.rawMessage}`);
  if (message) t.regex(error.rawMessage, message);
}

const tokenOf = (link: string | undefined) => decodeURIComponent(link?.split("/").at(-1) ?? "");

test("InviteMember mails the one-time link to the invited email, with the store, the role and when it stops working", async (t) => {
  const { accounts, storeId, lastMailTo } = await setup(t);
  const { invitationToken, expiresAt } = await accounts.inviteMember({ storeId, email: "  Dewi@Example.CO.ID ", role: "support" });
  const { mail, link } = lastMailTo("dewi@example.co.id");
  t.truthy(mail, "one mail to the normalized address");
  t.is(mail!.kind, "invitation");
  t.is(link, inviteUrl(BASE, invitationToken));
  t.regex(mail!.subject, /Toko Tim/);
  t.regex(mail!.text, /as support/);
  const until = timestampDate(expiresAt!);
  t.true(mail!.text.includes(`${until.getUTCFullYear()}`) && mail!.text.includes("UTC"), mail!.text);
});

test("ListInvitations: pending ones only, newest first, with their role; accepted, expired and other stores' are not listed", async (t) => {
  const { accounts, stores, storeId, advance } = await setup(t);
  const other = (await stores.createStore({ name: "Toko Lain" })).store!.id;
  await accounts.inviteMember({ storeId, email: "a@example.co.id", role: "viewer" });
  const second = await accounts.inviteMember({ storeId, email: "b@example.co.id", role: "developer" });
  await accounts.inviteMember({ storeId: other, email: "c@example.co.id", role: "owner" });
  let { invitations } = await accounts.listInvitations({ storeId });
  t.deepEqual(
    invitations.map((i) => [i.email, i.role]),
    [
      ["b@example.co.id", "developer"],
      ["a@example.co.id", "viewer"],
    ],
  );
  await accounts.acceptInvitation({ token: second.invitationToken, password: PASSWORD });
  ({ invitations } = await accounts.listInvitations({ storeId }));
  t.deepEqual(invitations.map((i) => i.email), ["a@example.co.id"], "an accepted invitation is no longer pending");
  await advance(72 * HOUR + 1);
  t.deepEqual((await accounts.listInvitations({ storeId })).invitations, [], "an expired one neither");
  await rejects(t, accounts.listInvitations({ storeId: "nope" }), Code.InvalidArgument, /store_id/);
  await rejects(t, accounts.listInvitations({ storeId: randomUUID() }), Code.NotFound);
});

test("RevokeInvitation: the link stops working at once and the revocation is audited; another store's or a spent one is NOT_FOUND", async (t) => {
  const { accounts, stores, storeId } = await setup(t);
  const other = (await stores.createStore({ name: "Toko Lain" })).store!.id;
  const { invitationToken } = await accounts.inviteMember({ storeId, email: "a@example.co.id", role: "viewer" });
  const [pending] = (await accounts.listInvitations({ storeId })).invitations;
  await rejects(t, accounts.revokeInvitation({ storeId: other, invitationId: pending!.id }), Code.NotFound);
  await rejects(t, accounts.revokeInvitation({ storeId, invitationId: "x" }), Code.InvalidArgument, /invitation_id/);
  const { invitation } = await accounts.revokeInvitation({ storeId, invitationId: pending!.id });
  t.is(invitation?.email, "a@example.co.id");
  t.deepEqual((await accounts.listMembers({ storeId })).members, [], "a pending invitation made no member");
  t.deepEqual((await accounts.listInvitations({ storeId })).invitations, []);
  t.is((await accounts.checkLink({ kind: "invitation", token: invitationToken })).state, "unknown");
  await rejects(t, accounts.acceptInvitation({ token: invitationToken, password: PASSWORD }), Code.Unauthenticated);
  await rejects(t, accounts.revokeInvitation({ storeId, invitationId: pending!.id }), Code.NotFound);
  const { entries } = await accounts.listAudit({ storeId });
  t.deepEqual(entries.filter((e) => e.action === "invitation.revoked").map((e) => [e.actor, e.target]), [["operator", "member:a@example.co.id"]]);
});

// An invitation to an address that already has an account: a store could otherwise
// learn that the address has one (a member at once, "Active", with a last sign-in) and
// sign that person out everywhere by removing the member it had made.

test("InviteMember of an address that already has an account: no member until accepted, and every answer reads as for a new address", async (t) => {
  const { accounts, stores, activeMember, lastMailTo } = await setup(t);
  const member = await activeMember("owner");
  const other = (await stores.createStore({ name: "Toko Lain" })).store!.id;
  const existing = await accounts.inviteMember({ storeId: other, email: member.email, role: "viewer" });
  const fresh = await accounts.inviteMember({ storeId: other, email: "baru@example.co.id", role: "viewer" });
  const { invitations } = await accounts.listInvitations({ storeId: other });
  t.deepEqual(invitations.map((i) => [i.email, i.role]), [
    ["baru@example.co.id", "viewer"],
    [member.email, "viewer"],
  ]);
  for (const answer of [existing, fresh]) {
    const { status, role, lastSignedInAt, createdAt } = answer.member!;
    t.deepEqual({ status, role, lastSignedInAt }, { status: "invited", role: "viewer", lastSignedInAt: undefined }, answer.member!.email);
    t.deepEqual(createdAt, invitations.find((i) => i.email === answer.member!.email)!.createdAt, "the invitation's time, not the account's");
  }
  t.deepEqual((await accounts.listMembers({ storeId: other })).members, [], "nobody is a member of the inviting store");
  for (const invited of [existing, fresh]) {
    await rejects(t, accounts.setMemberRole({ storeId: other, memberId: invited.member!.id, role: "owner" }), Code.NotFound, /not found/);
    await rejects(t, accounts.removeMember({ storeId: other, memberId: invited.member!.id }), Code.NotFound, /not found/);
  }
  t.deepEqual((await accounts.resolveSession({ token: member.token })).stores.map((s) => s.name), ["Toko Tim"], "the invitation gave them no store");
  const mailText = (email: string) => {
    const { mail, link } = lastMailTo(email);
    return mail!.text.replace(link!, "LINK");
  };
  t.is(mailText(member.email), mailText("baru@example.co.id"), "one mail for both");
});

test("RevokeInvitation of an existing account's invitation, again and again, ends none of their sessions and changes no membership", async (t) => {
  const { accounts, stores, storeId, sql, activeMember } = await setup(t);
  const member = await activeMember("viewer");
  const second = (await accounts.signIn({ email: member.email, password: PASSWORD })).session!.token;
  const other = (await stores.createStore({ name: "Toko Lain" })).store!.id;
  for (let round = 0; round < 3; round++) {
    const { member: invited } = await accounts.inviteMember({ storeId: other, email: member.email, role: "developer" });
    await rejects(t, accounts.removeMember({ storeId: other, memberId: invited!.id }), Code.NotFound, /not found/);
    const [pending] = (await accounts.listInvitations({ storeId: other })).invitations;
    const { invitation } = await accounts.revokeInvitation({ storeId: other, invitationId: pending!.id });
    t.like(invitation, { email: member.email, role: "developer" });
  }
  const [{ sessions }] = await sql<[{ sessions: number }]>`select count(*)::int as sessions from sessions where member_id = ${member.id}`;
  t.is(sessions, 2, "both sessions are still there");
  for (const token of [member.token, second]) {
    t.deepEqual((await accounts.resolveSession({ token })).stores.map((s) => [s.id, s.role]), [[storeId, "viewer"]]);
  }
  t.deepEqual((await accounts.listMembers({ storeId })).members.map((m) => [m.email, m.role, m.status]), [[member.email, "viewer", "active"]]);
  t.deepEqual((await accounts.listMembers({ storeId: other })).members, []);
  t.truthy((await accounts.signIn({ email: member.email, password: PASSWORD })).session, "the password is unchanged");
});

test("AcceptInvitation by someone who already has an account makes the membership then, with the invitation's role", async (t) => {
  const { accounts, stores, storeId, activeMember } = await setup(t);
  const member = await activeMember("viewer");
  const other = (await stores.createStore({ name: "Toko Lain" })).store!.id;
  const { invitationToken } = await accounts.inviteMember({ storeId: other, email: member.email, role: "support" });
  const { session } = await accounts.acceptInvitation({ token: invitationToken, password: NEW_PASSWORD });
  t.deepEqual((await accounts.resolveSession({ token: session!.token })).stores.map((s) => [s.id, s.role]), [
    [other, "support"],
    [storeId, "viewer"],
  ]);
  t.deepEqual((await accounts.listMembers({ storeId: other })).members.map((m) => [m.email, m.role, m.status]), [[member.email, "support", "active"]]);
  t.deepEqual((await accounts.listInvitations({ storeId: other })).invitations, []);
  t.is((await accounts.checkLink({ kind: "invitation", token: invitationToken })).state, "used");
});

test("RevokeInvitation for a role that may not manage the team: PERMISSION_DENIED, the invitation still works, nothing audited", async (t) => {
  const { accounts, storeId, as, activeMember } = await setup(t);
  const { invitationToken } = await accounts.inviteMember({ storeId, email: "a@example.co.id", role: "viewer" });
  const [pending] = (await accounts.listInvitations({ storeId })).invitations;
  for (const role of ["developer", "support", "viewer"] as const) {
    as.actor = (await activeMember(role)).actor;
    await rejects(t, accounts.revokeInvitation({ storeId, invitationId: pending!.id }), Code.PermissionDenied);
  }
  as.actor = OPERATOR;
  t.is((await accounts.listInvitations({ storeId })).invitations.length, 1);
  t.is((await accounts.checkLink({ kind: "invitation", token: invitationToken })).state, "pending");
  t.is((await accounts.listAudit({ storeId })).entries.filter((e) => e.action === "invitation.revoked").length, 0);
});

test("CheckLink says pending (with the email), used, expired or unknown; an unknown kind is INVALID_ARGUMENT", async (t) => {
  const { accounts, storeId, advance } = await setup(t);
  const first = await accounts.inviteMember({ storeId, email: "a@example.co.id", role: "viewer" });
  const second = await accounts.inviteMember({ storeId, email: "b@example.co.id", role: "viewer" });
  t.deepEqual(await accounts.checkLink({ kind: "invitation", token: first.invitationToken }), { $typeName: "catalog.v1.CheckLinkResponse", state: "pending", email: "a@example.co.id" } as never);
  await accounts.acceptInvitation({ token: first.invitationToken, password: PASSWORD });
  t.is((await accounts.checkLink({ kind: "invitation", token: first.invitationToken })).state, "used");
  await advance(72 * HOUR + 1);
  t.is((await accounts.checkLink({ kind: "invitation", token: second.invitationToken })).state, "expired");
  for (const token of ["", "short", "A".repeat(43)]) {
    const answer = await accounts.checkLink({ kind: "invitation", token });
    t.deepEqual([answer.state, answer.email], ["unknown", ""], token);
  }
  t.is((await accounts.checkLink({ kind: "password_reset", token: second.invitationToken })).state, "unknown", "an invitation is no reset link");
  await rejects(t, accounts.checkLink({ kind: "session", token: first.invitationToken }), Code.InvalidArgument, /kind/);
});

test("RequestPasswordReset answers the same for every email; only a member with a password gets a link, valid 1 h", async (t) => {
  const { accounts, storeId, mails, lastMailTo, activeMember } = await setup(t);
  const member = await activeMember("support", "sari@example.co.id");
  await accounts.inviteMember({ storeId, email: "invited@example.co.id", role: "viewer" });
  const before = mails.length;
  const answers: unknown[] = [];
  for (const email of ["nobody@example.co.id", "invited@example.co.id", "not an email", "", "  SARI@example.co.id "]) {
    answers.push(await accounts.requestPasswordReset({ email, clientAddress: "203.0.113.7" }));
  }
  t.true(answers.every((answer) => JSON.stringify(answer) === JSON.stringify(answers[0])), "one answer for all");
  t.is(mails.length, before + 1, "one mail: to the member with a password");
  const { mail, link } = lastMailTo(member.email);
  t.is(mail?.kind, "password-reset");
  t.is(link, passwordResetUrl(BASE, tokenOf(link)));
  t.deepEqual(await accounts.checkLink({ kind: "password_reset", token: tokenOf(link) }), { $typeName: "catalog.v1.CheckLinkResponse", state: "pending", email: member.email } as never);
});

test("RequestPasswordReset is limited: 3 links per email and 10 requests per address an hour, silently", async (t) => {
  const { accounts, mails, advance, activeMember } = await setup(t);
  const member = await activeMember("viewer");
  const sent = () => mails.filter((m) => m.kind === "password-reset" && m.to === member.email).length;
  for (let i = 0; i < 5; i++) await accounts.requestPasswordReset({ email: member.email, clientAddress: `198.51.100.${i}` });
  t.is(sent(), 3, "the 4th and 5th request for one email within the hour mail nothing");
  await advance(HOUR + 1);
  await accounts.requestPasswordReset({ email: member.email, clientAddress: "198.51.100.99" });
  t.is(sent(), 4, "an hour later the email may ask again");

  const other = await activeMember("viewer");
  for (let i = 0; i < 10; i++) await accounts.requestPasswordReset({ email: `stranger${i}@example.co.id`, clientAddress: "203.0.113.50" });
  await accounts.requestPasswordReset({ email: other.email, clientAddress: "203.0.113.50" });
  t.is(mails.filter((m) => m.to === other.email && m.kind === "password-reset").length, 0, "the 11th request from one address mails nothing, whatever the email");
  await accounts.requestPasswordReset({ email: other.email, clientAddress: "203.0.113.51" });
  t.is(mails.filter((m) => m.to === other.email && m.kind === "password-reset").length, 1, "another address still may");
});

test("ResetPassword: the new password works, the old does not, every other session ends, and the link is spent", async (t) => {
  const { accounts, storeId, lastMailTo, activeMember } = await setup(t);
  const member = await activeMember("developer", "budi@example.co.id");
  const second = (await accounts.signIn({ email: member.email, password: PASSWORD })).session!.token;
  await accounts.requestPasswordReset({ email: member.email, clientAddress: "203.0.113.7" });
  const token = tokenOf(lastMailTo(member.email).link);
  await rejects(t, accounts.resetPassword({ token, password: "short" }), Code.InvalidArgument, /password/);
  t.is((await accounts.checkLink({ kind: "password_reset", token })).state, "pending", "a refused password does not spend the link");

  const { session, member: after } = await accounts.resetPassword({ token, password: NEW_PASSWORD });
  t.is(after?.email, member.email);
  t.is((await accounts.resolveSession({ token: session!.token })).member?.email, member.email, "this browser is signed in");
  for (const old of [member.token, second]) await rejects(t, accounts.resolveSession({ token: old }), Code.Unauthenticated);
  await rejects(t, accounts.signIn({ email: member.email, password: PASSWORD }), Code.Unauthenticated);
  await accounts.signIn({ email: member.email, password: NEW_PASSWORD });

  t.is((await accounts.checkLink({ kind: "password_reset", token })).state, "used");
  await rejects(t, accounts.resetPassword({ token, password: "yet another password" }), Code.Unauthenticated, /^invalid credentials$/);
  const { entries } = await accounts.listAudit({ storeId });
  t.deepEqual(entries.filter((e) => e.action === "member.password_reset").map((e) => [e.actor, e.target]), [[member.email, `member:${member.email}`]]);
});

test("ResetPassword: an expired link, one replaced by a newer request, or a made-up one fails like any authentication and changes nothing", async (t) => {
  const { accounts, advance, lastMailTo, activeMember } = await setup(t);
  const member = await activeMember("viewer");
  await accounts.requestPasswordReset({ email: member.email, clientAddress: "203.0.113.7" });
  const older = tokenOf(lastMailTo(member.email).link);
  await accounts.requestPasswordReset({ email: member.email, clientAddress: "203.0.113.7" });
  const newer = tokenOf(lastMailTo(member.email).link);
  t.not(older, newer);
  t.is((await accounts.checkLink({ kind: "password_reset", token: older })).state, "unknown", "a newer link replaces the older");
  await advance(HOUR + 1);
  t.is((await accounts.checkLink({ kind: "password_reset", token: newer })).state, "expired");
  for (const token of [older, newer, "A".repeat(43), "x"]) {
    await rejects(t, accounts.resetPassword({ token, password: NEW_PASSWORD }), Code.Unauthenticated, /^invalid credentials$/);
  }
  t.truthy((await accounts.signIn({ email: member.email, password: PASSWORD })).session, "the password is still the old one");
});

test("ListMembers shows each member's last sign-in, from accepting on; a pending invitation is no member and has none", async (t) => {
  const { accounts, storeId, advance, activeMember } = await setup(t);
  await accounts.inviteMember({ storeId, email: "new@example.co.id", role: "viewer" });
  const member = await activeMember("support");
  const listed = async () => (await accounts.listMembers({ storeId })).members;
  t.deepEqual((await listed()).map((m) => m.email), [member.email]);
  const lastOf = async (email: string) => (await listed()).find((m) => m.email === email)?.lastSignedInAt;
  await advance(HOUR);
  // Read once the hour has passed: it is the stored time, moved back with the rest.
  const first = timestampDate((await lastOf(member.email))!);
  await accounts.signIn({ email: member.email, password: PASSWORD });
  const second = timestampDate((await lastOf(member.email))!);
  t.true(second.getTime() - first.getTime() >= HOUR * 1000, `${first.toISOString()} → ${second.toISOString()}`);
});
