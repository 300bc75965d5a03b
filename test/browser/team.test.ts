// The team a merchant runs alone (docs/team.md#team-page), in a real browser against the whole
// stack with mail going over SMTP to a receiver of the test's own: an owner invites from
// the Team page and the invited person finds the link in their mail; roles change and
// members go; a used, expired or revoked link says so; each role's navigation; a forged
// post; "Forgot password?" end to end, with the member's other session ended; and the
// Team page as the README shows it.
// Its tests run one at a time (test.serial): each drives browser pages of its own, and
// all of them at once beside another file's crowded two cores past the pages' waits.
import test, { type ExecutionContext } from "ava";
import { randomUUID } from "node:crypto";
import type { Browser, Locator, Page } from "playwright-core";
import type { Role } from "../../common/roles.js";
import { launchBrowser } from "../helpers/browser.js";
import {
  acceptInvitation,
  bodyText,
  button,
  DASHBOARD_PASSWORD,
  dashboardUrl,
  follow,
  link,
  newDashboardPage,
  shoot,
  type DashboardPage,
} from "../helpers/dashboard-browser.js";
import { waitFor } from "../helpers/http.js";
import { startSmtpReceiver, type ReceivedMail, type SmtpReceiver } from "../helpers/smtp-receiver.js";
import { createStore, Plan, startStack, type Stack } from "../helpers/stack.js";

let stack: Stack;
let browser: Browser;
let smtp: SmtpReceiver;
test.before(async () => {
  smtp = await startSmtpReceiver();
  [stack, browser] = await Promise.all([startStack({ smtpUrl: smtp.url }), launchBrowser()]);
});
test.after.always(async () => {
  await browser?.close();
  await stack?.close();
  await smtp?.close();
});

const uid = () => randomUUID().slice(0, 8);
const storeUrl = (storeId: string, rest = "overview") => dashboardUrl(stack, storeId, rest);
const loginUrl = () => `${stack.baseUrl}/dashboard/login`;
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

const NAV = {
  owner: ["Overview", "Orders", "Products", "Payment links", "API keys", "Webhooks", "Events", "Bank mutations", "Team", "Settings", "Audit log"],
  developer: ["Overview", "Orders", "Products", "Payment links", "API keys", "Webhooks", "Events", "Bank mutations", "Audit log"],
  support: ["Overview", "Orders", "Products", "Payment links", "Webhooks", "Events", "Bank mutations", "Audit log"],
  viewer: ["Overview", "Orders", "Products", "Payment links", "Webhooks", "Events", "Bank mutations", "Audit log"],
} satisfies Record<Role, string[]>;

/** The mails of a kind (by subject) sent to `email`, as received so far. */
const mailsTo = (email: string, subject: RegExp) => smtp.messages.filter((mail) => mail.envelope.to.includes(email) && subject.test(mail.subject));

/** The latest mail to `email` of a kind, once `count` of them have arrived (mail goes out after the change commits). */
async function mailTo(email: string, subject: RegExp, count = 1): Promise<ReceivedMail> {
  await waitFor(() => mailsTo(email, subject).length >= count, 20_000, 100);
  return mailsTo(email, subject).at(-1)!;
}
const linkIn = (mail: ReceivedMail) => /https?:\/\/\S+\/dashboard\/(?:invite|reset-password)\/\S+/.exec(mail.text)?.[0] ?? "";

/**
 * Runs password work (a scrypt in the catalog service: setting a password, signing in)
 * one at a time across the file's concurrent tests, as dashboard.test.ts does: several at
 * once on two cores only make each other slow, past the page's 10 s wait.
 */
let passwordQueue: Promise<unknown> = Promise.resolve();
function onePasswordAtATime<T>(work: () => Promise<T>): Promise<T> {
  const run = passwordQueue.then(work, work);
  passwordQueue = run.catch(() => undefined);
  return run;
}

/** Chooses a password on an invitation's or reset's page; a success lands on the dashboard. */
async function choosePassword(page: Page, password = DASHBOARD_PASSWORD): Promise<void> {
  await page.getByLabel("New password", { exact: true }).fill(password);
  await page.getByLabel("Confirm password", { exact: true }).fill(password);
  await onePasswordAtATime(() => follow(page, button(page, "Set password"), 30_000));
}

/** Signs in on the sign-in page. */
async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel("Email", { exact: true }).fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await onePasswordAtATime(() => follow(page, button(page, "Sign in"), 30_000));
}

/**
 * A store whose owner accepted the operator's invitation (an owner's, by default) in a
 * browser of their own. Emails are unique per test (one account per email across stores).
 */
async function owner(t: ExecutionContext, name: string, email = `owner-${uid()}@toko.example`) {
  const store = await createStore(stack, Plan.GROWTH, name);
  const view = await newDashboardPage(t, browser);
  await onePasswordAtATime(() => acceptInvitation(stack, view.page, store.storeId, email));
  return { ...store, email, ...view };
}

/** Someone invited into the store with `role`, who accepts in a browser of their own. */
async function teammate(t: ExecutionContext, storeId: string, role: Role, email = `${role}-${uid()}@toko.example`) {
  const { invitationToken } = await stack.accounts.inviteMember({ storeId, email, role });
  const view = await newDashboardPage(t, browser);
  await view.page.goto(`${stack.baseUrl}/dashboard/invite/${invitationToken}`);
  await choosePassword(view.page);
  if (view.page.url() !== storeUrl(storeId)) throw new Error(`accepting the invitation ended at ${view.page.url()}: ${await bodyText(view.page)}`);
  return { email, ...view };
}

const navLabels = (page: Page) => page.getByRole("navigation").getByRole("link").allInnerTexts();
/** A member's card in the Team page's list of members. */
const card = (page: Page, email: string) => page.getByRole("list", { name: "Members" }).getByRole("listitem").filter({ hasText: email });
const pending = (page: Page) => page.getByRole("list", { name: "Pending invitations" });

/** Clicks what posts a form and returns the status of the POST's answer (after its redirect, the page it led to). */
async function submit(page: Page, target: Locator): Promise<number> {
  const [response] = await Promise.all([page.waitForResponse((r) => r.request().method() === "POST"), follow(page, target)]);
  return response.status();
}

function assertNoCspViolations(t: ExecutionContext, ...views: DashboardPage[]): void {
  for (const view of views) t.deepEqual(view.cspViolations, [], "no page broke its own Content-Security-Policy");
}

test.serial("an owner invites by mail from the Team page; the link signs the new member in once, then says it was used", async (t) => {
  const o = await owner(t, "Toko Tim");
  await follow(o.page, o.page.getByRole("navigation").getByRole("link", { name: "Team", exact: true }));
  t.is(o.page.url(), storeUrl(o.storeId, "team"));
  const dewi = `dewi-${uid()}@toko.example`;
  await o.page.getByLabel("Email", { exact: true }).fill(dewi);
  await o.page.getByLabel("Role", { exact: true }).selectOption("support");
  await follow(o.page, button(o.page, "Send invitation"));
  t.regex(await o.page.getByRole("status").innerText(), /Invitation sent/, "the flash says the invitation went out");
  t.regex(await pending(o.page).innerText(), new RegExp(`${escape(dewi)}[\\s\\S]*Support`), "the pending invitation is listed with its role");
  t.is(await o.page.getByRole("button", { name: `Revoke the invitation of ${dewi}` }).count(), 1);

  const mail = await mailTo(dewi, /You are invited/);
  t.true(mail.to.includes(dewi), `the mail is addressed to ${dewi}: ${mail.to}`);
  t.regex(mail.subject, /Toko Tim/, "the subject names the store");
  t.is(mailsTo(dewi, /You are invited/).length, 1, "one invitation, one mail");
  const url = linkIn(mail);
  t.true(url.startsWith(`${stack.baseUrl}/dashboard/invite/`), mail.text);

  // Dewi, in a browser of her own.
  const d = await newDashboardPage(t, browser);
  const opened = await d.page.goto(url);
  t.is(opened?.status(), 200);
  t.regex(await bodyText(d.page), new RegExp(escape(dewi)), "the password page names whom the link is for");
  await choosePassword(d.page);
  t.is(d.page.url(), storeUrl(o.storeId), "setting a password signs her in on the overview");
  t.deepEqual(await navLabels(d.page), NAV.support, "support: no API keys, Team or Settings");

  await o.page.reload();
  const dewiCard = await card(o.page, dewi).innerText();
  t.regex(dewiCard, /Support/);
  t.regex(dewiCard, /Active/);
  t.regex(dewiCard, /Last sign-in:\s*\S.*WIB/, "with the time of her first sign-in");
  t.is(await pending(o.page).count(), 0, "nothing is pending any more");
  t.regex(await bodyText(o.page), /No pending invitations/);

  // The same link again: used, with a way to sign in.
  const again = await newDashboardPage(t, browser);
  const answer = await again.page.goto(url);
  t.is(answer?.status(), 410);
  t.regex(await bodyText(again.page), /This link was already used/);
  t.is(await again.page.getByLabel("New password", { exact: true }).count(), 0, "and no password form");
  await follow(again.page, link(again.page, "Sign in"));
  t.is(again.page.url(), loginUrl());
  t.true(await again.page.getByLabel("Password", { exact: true }).isVisible(), "the sign-in page");
  assertNoCspViolations(t, o, d, again);
});

test.serial("roles change and members go from the Team page; the last owner stays; a revoked or expired invitation's link says so", async (t) => {
  const o = await owner(t, "Toko Peran");
  const d = await teammate(t, o.storeId, "developer");
  t.deepEqual(await navLabels(d.page), NAV.developer);
  await o.page.goto(storeUrl(o.storeId, "team"));

  // Developer → Viewer: the flash, the list, and the member's next page.
  await card(o.page, d.email).getByLabel(`Role of ${d.email}`).selectOption("viewer");
  await follow(o.page, card(o.page, d.email).getByRole("button", { name: "Change role", exact: true }));
  t.regex(await o.page.getByRole("status").innerText(), /Role changed/);
  t.regex(await card(o.page, d.email).innerText(), /Viewer/);
  t.is(await card(o.page, d.email).getByLabel(`Role of ${d.email}`).inputValue(), "viewer");
  await d.page.reload();
  t.deepEqual(await navLabels(d.page), NAV.viewer, "the viewer's next page has the viewer's navigation");

  // The only owner cannot step down: 409, the reason, and nothing changed.
  await card(o.page, o.email).getByLabel(`Role of ${o.email}`).selectOption("developer");
  const status = await submit(o.page, card(o.page, o.email).getByRole("button", { name: "Change role", exact: true }));
  t.is(status, 409);
  t.regex(await o.page.getByRole("alert").innerText(), /a store must keep at least one owner/);
  t.regex(await card(o.page, o.email).innerText(), /Owner/);
  await o.page.goto(storeUrl(o.storeId, "team"));
  t.regex(await card(o.page, o.email).innerText(), /Owner/, "still the owner after a reload");
  t.deepEqual(await navLabels(o.page), NAV.owner);

  // Remove, confirmed.
  await follow(o.page, o.page.getByRole("link", { name: `Remove member ${d.email}` }));
  t.regex(await bodyText(o.page), /Remove this member\?/);
  t.true(await link(o.page, "Keep them").isVisible(), "the confirmation offers a way back");
  t.is(await card(o.page, d.email).count(), 0, "the confirmation is a page of its own");
  await follow(o.page, button(o.page, "Remove member"));
  t.regex(await o.page.getByRole("status").innerText(), /Member removed/);
  t.is(await card(o.page, d.email).count(), 0, "no longer listed");
  await d.page.reload();
  t.is(new URL(d.page.url()).pathname, "/dashboard/login", "the removed member's open browser is sent to sign in");

  // Revoke: the invitation goes, and its mailed link is not valid.
  const lina = `lina-${uid()}@toko.example`;
  await o.page.getByLabel("Email", { exact: true }).fill(lina);
  await follow(o.page, button(o.page, "Send invitation"));
  const url = linkIn(await mailTo(lina, /You are invited/));
  t.regex(await pending(o.page).innerText(), new RegExp(escape(lina)));
  // A second tab still shows the invitation: its Revoke, after the first, says it is gone.
  const staleTab = await o.context.newPage();
  await staleTab.goto(o.page.url());
  await follow(o.page, o.page.getByRole("button", { name: `Revoke the invitation of ${lina}` }));
  t.regex(await o.page.getByRole("status").innerText(), /Invitation revoked/);
  await follow(staleTab, staleTab.getByRole("button", { name: `Revoke the invitation of ${lina}` }));
  t.regex(await staleTab.getByRole("status").innerText(), /no longer pending/);
  await staleTab.close();
  t.false((await bodyText(o.page)).includes(lina), "someone who never joined is gone with the invitation");
  const revoked = await newDashboardPage(t, browser);
  t.is((await revoked.page.goto(url))?.status(), 404);
  t.regex(await bodyText(revoked.page), /This link is not valid/);
  await follow(revoked.page, link(revoked.page, "Sign in"));
  t.is(revoked.page.url(), loginUrl());

  // An invitation past its 72 hours (moved back in the database): expired, said so.
  const rudi = `rudi-${uid()}@toko.example`;
  await stack.accounts.inviteMember({ storeId: o.storeId, email: rudi, role: "viewer" });
  const late = linkIn(await mailTo(rudi, /You are invited/));
  await stack.catalogSql`
    update invitations set created_at = created_at - interval '73 hours', expires_at = expires_at - interval '73 hours'
    where member_id = (select id from members where email = ${rudi})`;
  t.is((await revoked.page.goto(late))?.status(), 410);
  t.regex(await bodyText(revoked.page), /This link has expired/);
  t.true(await link(revoked.page, "Sign in").isVisible());

  const actions = (await stack.auditLog(o.storeId)).map((entry) => entry.action);
  for (const action of ["member.invited", "member.role_changed", "member.removed", "invitation.revoked"]) t.true(actions.includes(action), action);
  assertNoCspViolations(t, o, d, revoked);
});

test.serial("an invitation to someone who already has an account is only pending, like any other: Invited, Revoke, no sign-in time; revoking it leaves them signed in", async (t) => {
  const o = await owner(t, "Toko Pengundang");
  // Someone with an account of their own, signed in to their store in their own browser.
  const x = await owner(t, "Toko Milik Sendiri");
  const fresh = `baru-${uid()}@toko.example`;
  await o.page.goto(storeUrl(o.storeId, "team"));
  for (const email of [x.email, fresh]) {
    await o.page.getByLabel("Email", { exact: true }).fill(email);
    await follow(o.page, button(o.page, "Send invitation"));
    t.regex(await o.page.getByRole("status").innerText(), /Invitation sent/);
  }

  t.is(await card(o.page, x.email).count(), 0, "not among the members");
  const row = (email: string) => pending(o.page).getByRole("listitem").filter({ hasText: email });
  const text = await row(x.email).innerText();
  t.regex(text, /Viewer/);
  t.regex(text, /Invited/);
  t.notRegex(text, /Active|sign-in/i, "nothing of their account: no status, no sign-in time");
  // Digits aside (the times), the row reads exactly as the new address's.
  const masked = async (email: string) => (await row(email).innerText()).replace(email, "EMAIL").replace(/\d/g, "0");
  t.is(await masked(x.email), await masked(fresh));

  await follow(o.page, row(x.email).getByRole("button", { name: `Revoke the invitation of ${x.email}` }));
  t.regex(await o.page.getByRole("status").innerText(), /Invitation revoked/);
  t.false((await bodyText(o.page)).includes(x.email));
  await x.page.reload();
  t.is(x.page.url(), storeUrl(x.storeId), "their open browser is still signed in to their own store");
  assertNoCspViolations(t, o, x);
});

test.serial("Remove member revokes the API keys the member created, unless Keep their API keys is ticked; the notice and the audit log name them", async (t) => {
  const o = await owner(t, "Toko Kunci Tim");
  const leaving = await teammate(t, o.storeId, "developer");
  const staying = await teammate(t, o.storeId, "developer");
  /** A key made on the API keys page in the member's own browser: its secret. */
  const makeKey = async (view: DashboardPage, name: string) => {
    await view.page.goto(storeUrl(o.storeId, "api-keys"));
    await view.page.getByLabel("Key name", { exact: true }).fill(name);
    await follow(view.page, button(view.page, "Create key"));
    return (await view.page.getByLabel("New API key", { exact: true }).innerText()).trim();
  };
  const shopSync = await makeKey(leaving, "Shop sync");
  const erp = await makeKey(staying, "ERP");
  const works = async (secret: string) => stack.stores.authenticateApiKey({ secret }).then(() => true, () => false);

  // Without ticking: the member's key goes with them.
  await o.page.goto(storeUrl(o.storeId, "team"));
  await follow(o.page, o.page.getByRole("link", { name: `Remove member ${leaving.email}` }));
  const keep = o.page.getByRole("checkbox", { name: "Keep their API keys", exact: true });
  t.false(await keep.isChecked(), "keeping the keys is a choice, not the default");
  await shoot(t, o.page, "team-remove");
  await o.page.setViewportSize({ width: 1280, height: 800 });
  await follow(o.page, button(o.page, "Remove member"));
  t.is(await o.page.getByRole("status").innerText(), `Member removed: ${leaving.email}. Their sessions ended at once. API keys revoked: Shop sync.`);
  t.false(await works(shopSync), "the removed member's key is refused");
  t.true(await works(erp), "another member's key is untouched");

  // Ticked: the key stays for the systems that use it.
  await follow(o.page, o.page.getByRole("link", { name: `Remove member ${staying.email}` }));
  await o.page.getByRole("checkbox", { name: "Keep their API keys", exact: true }).check();
  await follow(o.page, button(o.page, "Remove member"));
  t.is(await o.page.getByRole("status").innerText(), `Member removed: ${staying.email}. Their sessions ended at once. API keys kept: ERP.`);
  t.true(await works(erp), "the kept key still works");

  await o.page.goto(storeUrl(o.storeId, "audit-log?action=member.removed"));
  // Each entry as read: the sentence, then the keys' change on a line of its own.
  const said = (await o.page.locator("tbody tr td:last-child").allInnerTexts()).map((text) => text.replace(/\u00a0/g, " ").trim());
  t.deepEqual(said, [`Removed ${staying.email} from the team\nAPI keys: ERP → kept`, `Removed ${leaving.email} from the team\nAPI keys: Shop sync → revoked`]);
  await shoot(t, o.page, "audit-log-member-removed");
  assertNoCspViolations(t, o, leaving, staying);
});

test.serial("each role's navigation, and a forged Team post from a role that is not an owner is refused with nothing changed", async (t) => {
  const o = await owner(t, "Toko Navigasi");
  t.deepEqual(await navLabels(o.page), NAV.owner, "owner");
  const members: DashboardPage[] = [];
  for (const role of ["developer", "support", "viewer"] as const) {
    const m = await teammate(t, o.storeId, role);
    members.push(m);
    t.deepEqual(await navLabels(m.page), NAV[role], role);
    // A form made by hand in the member's own page, with their valid CSRF token.
    const csrf = await m.page.locator("input[name=csrf]").first().inputValue();
    const action = `/dashboard/stores/${o.storeId}/team/invitations`;
    const [response] = await Promise.all([
      m.page.waitForResponse((r) => r.request().method() === "POST"),
      m.page.waitForEvent("load"),
      m.page.evaluate(
        ({ action, csrf, role }) => {
          const doc = (globalThis as any).document;
          const form = doc.createElement("form");
          form.method = "post";
          form.action = action;
          for (const [name, value] of Object.entries({ csrf, email: `forged-${role}@evil.example`, role: "owner" })) {
            const input = doc.createElement("input");
            input.type = "hidden";
            input.name = name;
            input.value = value;
            form.append(input);
          }
          doc.body.append(form);
          form.submit();
        },
        { action, csrf, role },
      ),
    ]);
    t.is(response.status(), 403, role);
    t.regex(await m.page.locator("h1").innerText(), /Not allowed for your role/, role);
    t.regex(await bodyText(m.page), new RegExp(`The ${role} role may not change the store's settings and its team`), role);
    t.deepEqual(await navLabels(m.page), NAV[role], `${role}: the refusal keeps the role's navigation`);
  }
  t.deepEqual((await stack.accounts.listInvitations({ storeId: o.storeId })).invitations, [], "no invitation was made");
  const emails = (await stack.accounts.listMembers({ storeId: o.storeId })).members.map((member) => member.email);
  t.false(emails.some((email) => email.includes("evil.example")), "nor a member");
  assertNoCspViolations(t, o, ...members);
});

test.serial("Forgot password? answers the same for any email, mails a one-time link, and the new password ends the other session", async (t) => {
  const o = await owner(t, "Toko Lupa"); // context A, signed in
  const b = await newDashboardPage(t, browser);
  await b.page.goto(loginUrl());
  await follow(b.page, link(b.page, "Forgot password?"));
  t.is(b.page.url(), `${stack.baseUrl}/dashboard/forgot-password`);
  const ask = async (email: string) => {
    await b.page.goto(`${stack.baseUrl}/dashboard/forgot-password`);
    await b.page.getByLabel("Email", { exact: true }).fill(email);
    await follow(b.page, button(b.page, "Send reset link"));
    const text = await bodyText(b.page);
    t.true(text.includes(email), "the page repeats the email asked for");
    return text.replace(email, "<email>");
  };
  const stranger = `nobody-${uid()}@toko.example`;
  const known = await ask(o.email);
  t.regex(known, /Check your mail/);
  t.is(b.page.url(), `${stack.baseUrl}/dashboard/forgot-password`, "the email is not in the URL");
  await b.page.reload();
  t.notRegex(await bodyText(b.page), /Check your mail/, "a reload sends nothing again: it shows the form");
  t.is(await button(b.page, "Send reset link").count(), 1);
  t.is(await ask(stranger), known, "the same page for an unknown email");

  const mail = await mailTo(o.email, /Reset your password/);
  t.true(mail.to.includes(o.email));
  const url = linkIn(mail);
  t.true(url.startsWith(`${stack.baseUrl}/dashboard/reset-password/`), mail.text);
  await b.page.goto(url);
  t.regex(await bodyText(b.page), new RegExp(escape(o.email)), "the reset page names whose password it sets");
  await choosePassword(b.page, "kata sandi yang sama sekali baru");
  t.is(b.page.url(), storeUrl(o.storeId), "this browser is signed in on the dashboard");

  await o.page.goto(storeUrl(o.storeId, "audit-log?action=member"));
  t.is(new URL(o.page.url()).pathname, "/dashboard/login", "the member's other session ended");
  await signIn(o.page, o.email, DASHBOARD_PASSWORD);
  t.regex(await bodyText(o.page), /Invalid email or password/, "the old password no longer works");
  await signIn(o.page, o.email, "kata sandi yang sama sekali baru");
  t.is(o.page.url(), storeUrl(o.storeId, "audit-log?action=member"), "the new one does, and brings them back to the page they asked for");

  const spent = await newDashboardPage(t, browser);
  t.is((await spent.page.goto(url))?.status(), 410);
  t.regex(await bodyText(spent.page), /This link was already used/);
  t.true(await link(spent.page, "Sign in").isVisible());

  // Everything above happened after both requests, so any mail they caused has been sent.
  t.is(mailsTo(o.email, /Reset your password/).length, 1, "one reset mail to the member");
  t.false(smtp.messages.some((m) => m.envelope.to.includes(stranger)), "nothing was mailed to the unknown email");
  assertNoCspViolations(t, o, b, spent);
});

test.serial("the Team page with members of several roles and a pending invitation, at 360 and 1280 px", async (t) => {
  // Names of people rather than test ids: the README shows this page.
  const o = await owner(t, "Toko Kopi Nusantara", "sari@kopinusantara.example");
  const developer = await teammate(t, o.storeId, "developer", "andi@kopinusantara.example");
  const support = await teammate(t, o.storeId, "support", "rina@kopinusantara.example");
  const budi = "budi@kopinusantara.example";
  await stack.accounts.inviteMember({ storeId: o.storeId, email: budi, role: "viewer" });
  await o.page.goto(storeUrl(o.storeId, "team"));

  for (const [email, role] of [
    [o.email, "Owner"],
    [developer.email, "Developer"],
    [support.email, "Support"],
  ] as const) {
    const text = await card(o.page, email).innerText();
    t.regex(text, new RegExp(role), `${email} is listed as ${role}`);
    t.regex(text, /Active/);
  }
  t.regex(await pending(o.page).innerText(), new RegExp(`${escape(budi)}[\\s\\S]*Viewer`));
  await shoot(t, o.page, "team");
  assertNoCspViolations(t, o, developer, support);
});

test.serial("the only owner is offered no Remove, and their Remove page says why without a button; long emails break only between their parts at 360 px", async (t) => {
  const o = await owner(t, "Toko Nama Panjang", "kusumaningrum.wijayakusuma@example.co.id");
  const invited = "wijayakusuma.kusumaningrum@toko-kopi-nusantara.example.co.id";
  await stack.accounts.inviteMember({ storeId: o.storeId, email: invited, role: "viewer" });
  await o.page.goto(storeUrl(o.storeId, "team"));
  t.is(await o.page.getByRole("link", { name: `Remove member ${o.email}` }).count(), 0, "no Remove for the only owner");
  await shoot(t, o.page, "team-long-emails");

  const { members } = await stack.accounts.listMembers({ storeId: o.storeId });
  const me = members.find((member) => member.email === o.email)!;
  const response = await o.page.goto(storeUrl(o.storeId, `team/${me.id}/remove`));
  t.is(response?.status(), 409);
  const text = (await bodyText(o.page)).replace(/\s+/g, " ");
  t.true(text.includes(`${o.email} is the only owner of Toko Nama Panjang: a store must keep at least one owner`), text);
  t.is(await button(o.page, "Remove member").count(), 0, "no button to confirm what would be refused");
  t.true(await link(o.page, "Back to the team").isVisible());
  await shoot(t, o.page, "team-last-owner");
  assertNoCspViolations(t, o);
});
