// The team a merchant runs alone (CONTRACT §13), in a real browser against the whole
// stack with mail going over SMTP to a receiver of the test's own: an owner invites from
// the Team page and the invited person finds the link in their mail; roles change and
// members go; a used or revoked link says so; each role's navigation; a forged post;
// and "Forgot password?" end to end, with the member's other session ended.
import test, { type ExecutionContext } from "ava";
import { randomUUID } from "node:crypto";
import type { Browser, Page } from "playwright-core";
import type { Role } from "../../common/roles.js";
import { launchBrowser } from "../helpers/browser.js";
import { bodyText, button, DASHBOARD_PASSWORD, follow, link, newDashboardPage, shoot } from "../helpers/dashboard-browser.js";
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
const storeUrl = (storeId: string, rest = "overview") => `${stack.baseUrl}/dashboard/stores/${storeId}/${rest}`;

/** The latest mail to `email` of a kind (its subject), once it has arrived. */
async function mailTo(email: string, subject: RegExp, count = 1): Promise<ReceivedMail> {
  const mine = () => smtp.messages.filter((mail) => mail.envelope.to.includes(email) && subject.test(mail.subject));
  await waitFor(async () => mine().length >= count, 20_000, 100);
  return mine().at(-1)!;
}
const linkIn = (mail: ReceivedMail) => /https?:\/\/\S+\/dashboard\/(?:invite|reset-password)\/\S+/.exec(mail.text)?.[0] ?? "";

/** Chooses a password on an invitation's or reset's page; lands on the dashboard. */
async function choosePassword(page: Page, password = DASHBOARD_PASSWORD): Promise<void> {
  await page.getByLabel("New password", { exact: true }).fill(password);
  await page.getByLabel("Confirm password", { exact: true }).fill(password);
  await follow(page, button(page, "Set password"));
}

/** A store whose owner accepted the operator's invitation in a browser of their own. */
async function owner(t: ExecutionContext, name: string) {
  const store = await createStore(stack, Plan.GROWTH, `${name} ${uid()}`);
  const email = `owner-${uid()}@toko.example`;
  const { invitationToken } = await stack.accounts.inviteMember({ storeId: store.storeId, email, role: "owner" });
  const view = await newDashboardPage(t, browser);
  await view.page.goto(`${stack.baseUrl}/dashboard/invite/${invitationToken}`);
  await choosePassword(view.page);
  t.is(view.page.url(), storeUrl(store.storeId));
  return { ...store, email, ...view };
}

/** Someone invited into the store with `role`, who accepts in a browser of their own. */
async function teammate(t: ExecutionContext, storeId: string, role: Role) {
  const email = `${role}-${uid()}@toko.example`;
  const { invitationToken } = await stack.accounts.inviteMember({ storeId, email, role });
  const view = await newDashboardPage(t, browser);
  await view.page.goto(`${stack.baseUrl}/dashboard/invite/${invitationToken}`);
  await choosePassword(view.page);
  return { email, ...view };
}

const navLabels = (page: Page) => page.getByRole("navigation").getByRole("link").allInnerTexts();
const card = (page: Page, email: string) => page.getByRole("listitem").filter({ hasText: email });

test("an owner invites by mail from the Team page; the link signs the new member in once, then says it was used", async (t) => {
  const o = await owner(t, "Toko Tim");
  await follow(o.page, o.page.getByRole("navigation").getByRole("link", { name: "Team", exact: true }));
  const dewi = `dewi-${uid()}@toko.example`;
  await o.page.getByLabel("Email", { exact: true }).fill(dewi);
  await o.page.getByLabel("Role", { exact: true }).selectOption("support");
  await follow(o.page, button(o.page, "Send invitation"));
  t.regex(await bodyText(o.page), /Invitation sent/);
  const pending = o.page.getByRole("list", { name: "Pending invitations" });
  t.regex(await pending.innerText(), new RegExp(`${dewi}[\\s\\S]*Support`));

  const mail = await mailTo(dewi, /You are invited/);
  t.regex(mail.subject, /Toko Tim/);
  const url = linkIn(mail);
  t.true(url.startsWith(`${stack.baseUrl}/dashboard/invite/`), mail.text);
  const d = await newDashboardPage(t, browser);
  await d.page.goto(url);
  t.regex(await bodyText(d.page), new RegExp(dewi.replace(/[.]/g, "\\.")), "the page names whom the link is for");
  await choosePassword(d.page);
  t.is(d.page.url(), storeUrl(o.storeId));
  t.deepEqual(await navLabels(d.page), ["Overview", "Orders", "Webhooks", "Events", "Bank mutations", "Audit log"], "support: no API keys, Team or Settings");

  await o.page.reload();
  const dewiCard = await card(o.page, dewi).innerText();
  t.regex(dewiCard, /Support/);
  t.regex(dewiCard, /Active/);
  t.regex(dewiCard, /Last sign-in:\s*\S+.*WIB/);
  t.regex(await bodyText(o.page), /No pending invitations/);

  // The same link again: used, with a way to sign in.
  const again = await newDashboardPage(t, browser);
  const answer = await again.page.goto(url);
  t.is(answer?.status(), 410);
  t.regex(await bodyText(again.page), /This link was already used/);
  await follow(again.page, link(again.page, "Sign in"));
  t.is(again.page.url(), `${stack.baseUrl}/dashboard/login`);
  for (const view of [o, d, again]) t.deepEqual(view.cspViolations, []);
});

test("roles change and members go from the Team page; the last owner stays; a revoked invitation's link is not valid", async (t) => {
  const o = await owner(t, "Toko Peran");
  const d = await teammate(t, o.storeId, "developer");
  await o.page.goto(storeUrl(o.storeId, "team"));

  await card(o.page, d.email).getByLabel(`Role of ${d.email}`).selectOption("viewer");
  await follow(o.page, card(o.page, d.email).getByRole("button", { name: "Change role", exact: true }));
  t.regex(await bodyText(o.page), /Role changed/);
  t.regex(await card(o.page, d.email).innerText(), /Viewer/);
  await d.page.reload();
  t.false((await navLabels(d.page)).includes("API keys"), "the viewer's next page has no API keys");

  // The only owner cannot step down.
  await card(o.page, o.email).getByLabel(`Role of ${o.email}`).selectOption("developer");
  await follow(o.page, card(o.page, o.email).getByRole("button", { name: "Change role", exact: true }));
  t.regex(await bodyText(o.page), /at least one owner/);
  t.regex(await card(o.page, o.email).innerText(), /Owner/);

  await follow(o.page, o.page.getByRole("link", { name: `Remove member ${d.email}` }));
  t.regex(await bodyText(o.page), /Remove this member\?/);
  await follow(o.page, button(o.page, "Remove member"));
  t.regex(await bodyText(o.page), /Member removed/);
  t.false((await bodyText(o.page)).includes(d.email));
  await d.page.goto(storeUrl(o.storeId));
  t.is(d.page.url(), `${stack.baseUrl}/dashboard/login`, "the removed member's browser is signed out");

  const lina = `lina-${uid()}@toko.example`;
  await o.page.getByLabel("Email", { exact: true }).fill(lina);
  await follow(o.page, button(o.page, "Send invitation"));
  const url = linkIn(await mailTo(lina, /You are invited/));
  await follow(o.page, o.page.getByRole("button", { name: `Revoke the invitation of ${lina}` }));
  t.regex(await bodyText(o.page), /Invitation revoked/);
  t.false((await bodyText(o.page)).includes(lina), "someone who never joined is gone with the invitation");
  const revoked = await newDashboardPage(t, browser);
  await revoked.page.goto(url);
  t.regex(await bodyText(revoked.page), /This link is not valid/);

  const actions = (await stack.auditLog(o.storeId)).map((entry) => entry.action);
  for (const action of ["member.invited", "member.role_changed", "member.removed", "invitation.revoked"]) t.true(actions.includes(action), action);
  // The page as the README shows it: members of several roles and a pending invitation.
  await teammate(t, o.storeId, "support");
  await stack.accounts.inviteMember({ storeId: o.storeId, email: `budi-${uid()}@toko.example`, role: "developer" });
  await o.page.goto(storeUrl(o.storeId, "team"));
  await shoot(t, o.page, "team");
  t.deepEqual(o.cspViolations, []);
});

test("each role's navigation, and a forged Team post from a role that is not an owner is refused with nothing changed", async (t) => {
  const o = await owner(t, "Toko Navigasi");
  t.deepEqual(await navLabels(o.page), ["Overview", "Orders", "API keys", "Webhooks", "Events", "Bank mutations", "Team", "Settings", "Audit log"]);
  const expected: Record<Exclude<Role, "owner">, string[]> = {
    developer: ["Overview", "Orders", "API keys", "Webhooks", "Events", "Bank mutations", "Audit log"],
    support: ["Overview", "Orders", "Webhooks", "Events", "Bank mutations", "Audit log"],
    viewer: ["Overview", "Orders", "Webhooks", "Events", "Bank mutations", "Audit log"],
  };
  for (const role of ["developer", "support", "viewer"] as const) {
    const m = await teammate(t, o.storeId, role);
    t.deepEqual(await navLabels(m.page), expected[role], role);
    // A form made by hand in the member's own page, with their valid CSRF token.
    const csrf = await m.page.locator("input[name=csrf]").first().inputValue();
    const action = `/dashboard/stores/${o.storeId}/team/invitations`;
    await Promise.all([
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
    t.regex(await bodyText(m.page), /Not allowed for your role/, role);
    t.regex(await bodyText(m.page), new RegExp(`The ${role} role may not change the store's settings and its team`), role);
  }
  t.deepEqual((await stack.accounts.listInvitations({ storeId: o.storeId })).invitations, [], "no invitation was made");
});

test("Forgot password? answers the same for any email, mails a one-time link, and the new password ends the other session", async (t) => {
  const o = await owner(t, "Toko Lupa");
  const b = await newDashboardPage(t, browser);
  await b.page.goto(`${stack.baseUrl}/dashboard/login`);
  await follow(b.page, link(b.page, "Forgot password?"));
  const ask = async (email: string) => {
    await b.page.goto(`${stack.baseUrl}/dashboard/forgot-password`);
    await b.page.getByLabel("Email", { exact: true }).fill(email);
    await follow(b.page, button(b.page, "Send reset link"));
    return (await bodyText(b.page)).replace(email, "<email>");
  };
  const stranger = `nobody-${uid()}@toko.example`;
  const known = await ask(o.email);
  t.regex(known, /Check your mail/);
  t.is(await ask(stranger), known, "the same page for an unknown email");

  const mail = await mailTo(o.email, /Reset your password/);
  const url = linkIn(mail);
  t.true(url.startsWith(`${stack.baseUrl}/dashboard/reset-password/`), mail.text);
  await b.page.goto(url);
  await choosePassword(b.page, "kata sandi yang sama sekali baru");
  t.is(b.page.url(), storeUrl(o.storeId), "this browser is signed in");

  await o.page.reload();
  t.is(o.page.url(), `${stack.baseUrl}/dashboard/login`, "the owner's other session ended");
  await o.page.getByLabel("Email", { exact: true }).fill(o.email);
  await o.page.getByLabel("Password", { exact: true }).fill(DASHBOARD_PASSWORD);
  await follow(o.page, button(o.page, "Sign in"));
  t.regex(await bodyText(o.page), /Invalid email or password/, "the old password no longer works");
  await o.page.getByLabel("Password", { exact: true }).fill("kata sandi yang sama sekali baru");
  await follow(o.page, button(o.page, "Sign in"));
  t.is(o.page.url(), storeUrl(o.storeId));

  const spent = await newDashboardPage(t, browser);
  await spent.page.goto(url);
  t.regex(await bodyText(spent.page), /This link was already used/);
  t.false(smtp.messages.some((m) => m.envelope.to.includes(stranger)), "nothing was mailed to the unknown email");
  for (const view of [o, b, spent]) t.deepEqual(view.cspViolations, []);
});
