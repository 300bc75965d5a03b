// The dashboard per role (docs/dashboard.md#per-role, docs/team.md#roles): each role's navigation shows only what it
// may use, a page it may not use is 403 saying what the role may not do, and a forged
// post of a forbidden action (the service answers PERMISSION_DENIED) is that 403 page
// with nothing changed. Real HTTP against the whole stack, members signed in by
// accepting invitations with a role over gRPC.
import test from "ava";
import { PERMISSION_TEXT, type Permission, type Role } from "../../common/roles.js";
import { csrfTokenFor } from "../../gateway/dashboard/session-cookie.js";
import { api } from "../helpers/http.js";
import { buyer, createProduct, createStore, Plan, startStack, type Stack } from "../helpers/stack.js";

let stack: Stack;
/** One store with a member of each role, shared: each sign-in costs a scrypt, and the tests change nothing but their own order. */
let m: Awaited<ReturnType<typeof team>>;
test.before(async () => {
  stack = await startStack({ webhooks: { bus: "in-process" } });
  m = await team("Roles Store");
});
test.after.always(async () => {
  await stack?.close();
});

const ALL_NAV = ["Overview", "Orders", "Products", "Payment links", "API keys", "Webhooks", "Events", "Bank mutations", "Team", "Settings", "Audit log"];
const OWNERS_ONLY = ["Team", "Settings"];
const EXPECTED_NAV: Record<Role, string[]> = {
  owner: ALL_NAV,
  developer: ALL_NAV.filter((label) => !OWNERS_ONLY.includes(label)),
  support: ALL_NAV.filter((label) => !OWNERS_ONLY.includes(label) && label !== "API keys"),
  viewer: ALL_NAV.filter((label) => !OWNERS_ONLY.includes(label) && label !== "API keys"),
};

/** A store with one signed-in member of each role. */
async function team(name: string) {
  const store = await createStore(stack, Plan.GROWTH, name);
  const product = await createProduct(stack, store.storeId, "Es Teh", 10_000);
  const slug = name.replace(/\W/g, "").toLowerCase();
  const signIn = async (role: Role) => {
    const { invitationToken } = await stack.accounts.inviteMember({ storeId: store.storeId, email: `${role}@${slug}.example`, role });
    const { session } = await stack.accounts.acceptInvitation({ token: invitationToken, password: "a long enough password" });
    const token = session!.token;
    const url = (path: string) => `${stack.baseUrl}/dashboard/stores/${store.storeId}/${path}`;
    return {
      get: (path: string) => fetch(url(path), { redirect: "manual", headers: { cookie: `session=${token}` } }),
      post: (path: string, fields: Record<string, string> | URLSearchParams) => {
        const body = new URLSearchParams(fields);
        body.set("csrf", csrfTokenFor(token));
        return fetch(url(path), { method: "POST", redirect: "manual", headers: { cookie: `session=${token}`, "content-type": "application/x-www-form-urlencoded" }, body });
      },
    };
  };
  // One at a time: each acceptance is a scrypt in the catalog service.
  const members = { owner: await signIn("owner"), developer: await signIn("developer"), support: await signIn("support"), viewer: await signIn("viewer") };
  const order = async (payment_method: string) => {
    const created = await api(stack.baseUrl, "/v1/orders", { method: "POST", key: store.key, json: { items: [{ product_id: product.id, quantity: 1 }], buyer, payment_method } });
    return created.body.data.order;
  };
  const statusOf = async (id: string) => (await api(stack.baseUrl, `/v1/orders/${id}`, { key: store.key })).body.data.order.status;
  /** The audit entries of changes (sign-ins left out). */
  const changes = async () => (await stack.auditLog(store.storeId)).filter((entry) => !/sign/.test(entry.action)).map((entry) => `${entry.action} ${entry.target}`);
  return { ...store, members, order, statusOf, changes };
}

/** The labels of the store navigation's links. */
function navLabels(html: string): string[] {
  const nav = /<nav class="main"[^>]*>([\s\S]*?)<\/nav>/.exec(html)?.[1] ?? "";
  return [...nav.matchAll(/<a [^>]*>([^<]*)<\/a>/g)].map((match) => match[1]!);
}

/** The 403 page names what the role may not do, in the role table's words. */
function refusal(permission: Permission): RegExp {
  const words = PERMISSION_TEXT[permission].replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/'/g, "(?:'|&#39;|&#x27;|&apos;)");
  return new RegExp(`may not ${words}`);
}

test("each role's navigation shows only the sections it may use", async (t) => {
  for (const role of ["owner", "developer", "support", "viewer"] as const) {
    const page = await m.members[role].get("overview");
    t.is(page.status, 200, role);
    t.deepEqual(navLabels(await page.text()), EXPECTED_NAV[role], role);
  }
});

test("a section the role may not use is 403 saying what the role may not do; the others open", async (t) => {
  const cases: [Role, string, Permission | undefined][] = [
    ["owner", "settings", undefined],
    ["owner", "team", undefined],
    ["owner", "api-keys", undefined],
    ["developer", "team", "store_admin"],
    ["support", "team", "store_admin"],
    ["viewer", "team", "store_admin"],
    ["developer", "api-keys", undefined],
    ["developer", "settings", "store_admin"],
    ["support", "api-keys", "developer_settings"],
    ["support", "settings", "store_admin"],
    ["viewer", "api-keys", "developer_settings"],
    ["viewer", "settings", "store_admin"],
    ["viewer", "webhooks", undefined],
    ["viewer", "bank-mutations", undefined],
    ["viewer", "audit-log", undefined],
    ["support", "events", undefined],
    // Every role sees the catalog; only roles with the catalog permission get its forms.
    ["viewer", "products", undefined],
    ["support", "products", undefined],
    ["developer", "products/new", undefined],
    ["owner", "products/new-bundle", undefined],
    ["support", "products/new", "catalog"],
    ["viewer", "products/new-bundle", "catalog"],
  ];
  for (const [role, path, denied] of cases) {
    const page = await m.members[role].get(path);
    const html = await page.text();
    if (!denied) {
      t.is(page.status, 200, `${role} ${path}`);
      continue;
    }
    t.is(page.status, 403, `${role} ${path}`);
    t.regex(page.headers.get("content-type") ?? "", /^text\/html/);
    t.regex(html, refusal(denied), `${role} ${path}`);
    t.regex(html, new RegExp(`The ${role} role may not`));
    t.notRegex(html, /Save settings|Create key|Send invitation|Create product|Create bundle/, "no form of the forbidden page");
  }
  // A sub-page of a forbidden section is refused the same way.
  t.is((await m.members.support.get("api-keys/00000000-0000-4000-8000-000000000000/revoke")).status, 403);
});

test.serial("a role sees webhooks and bank mutations without secrets or buttons it may not use", async (t) => {
  const { endpoint } = await stack.webhooks!.createEndpoint({ storeId: m.storeId, url: "https://example.com/hooks", description: "ERP", events: { all: true, types: [] } });
  for (const role of ["support", "viewer"] as const) {
    // An address is shown with a <wbr> after each @ . / - _ (where a phone may break it): read as its text.
    const list = (await (await m.members[role].get("webhooks")).text()).replaceAll("<wbr/>", "");
    t.regex(list, />https:\/\/example\.com</, role);
    t.notRegex(list, /example\.com\/hooks/, `${role}: the endpoint's origin only`);
    t.notRegex(list, /Save endpoint|Add endpoint/, role);
    const one = await (await m.members[role].get(`webhooks/${endpoint!.id}`)).text();
    t.regex(one, /Deliveries/, role);
    t.notRegex(one, /Reveal secret|Rotate secret|Send test event|Disable endpoint|Delete endpoint|Edit endpoint|Save endpoint/, role);
  }
  const confirm = await m.members.viewer.get(`webhooks/${endpoint!.id}/delete`);
  t.is(confirm.status, 403);
  t.regex(await confirm.text(), refusal("developer_settings"));
  const developerView = await (await m.members.developer.get(`webhooks/${endpoint!.id}`)).text();
  t.regex(developerView, /Reveal secret/);
  t.regex(developerView, /Edit endpoint/);
  t.regex(developerView, /https:\/\/example\.com\/hooks/, "the whole URL for a role that manages webhooks");
  for (const role of ["developer", "viewer"] as const) {
    const bank = await (await m.members[role].get("bank-mutations")).text();
    t.notRegex(bank, /Statement file \(CSV\)|>Import</, role);
  }
  t.regex(await (await m.members.support.get("bank-mutations")).text(), /Statement file \(CSV\)/);
});

// Serial: it compares the store's audit log and endpoints before and after.
test.serial("a forged post of what the role may not do is 403 saying so, and changes nothing", async (t) => {
  const transfer = await m.order("bank_transfer");
  const endpointsBefore = (await stack.webhooks!.listEndpoints({ storeId: m.storeId })).endpoints.length;
  const keysBefore = (await stack.stores.listApiKeys({ storeId: m.storeId })).apiKeys.length;
  const { store: storeBefore } = await stack.stores.getStore({ id: m.storeId });
  const changesBefore = await m.changes();

  const createKey = await m.members.support.post("api-keys", { name: "Forged" });
  t.is(createKey.status, 403);
  t.regex(await createKey.text(), refusal("developer_settings"));

  // Orders are a page every role sees: the order service refuses and the kit shows its 403.
  const markPaid = await m.members.developer.post(`orders/${transfer.id}/mark-paid`, {});
  t.is(markPaid.status, 403);
  const markPaidPage = await markPaid.text();
  t.regex(markPaidPage, refusal("payments"));
  t.regex(markPaidPage, /The developer role may not/);
  t.regex(markPaidPage, /Nothing was changed/);

  const settings = await m.members.developer.post("settings", { bank_name: "Forged Bank", bank_code: "999", account_number: "1", account_holder: "Mallory", success_url: "https://evil.example/" });
  t.is(settings.status, 403);
  t.regex(await settings.text(), refusal("store_admin"));

  const endpoint = await m.members.viewer.post("webhooks", { url: "https://evil.example/hook", description: "Forged", all_events: "1" });
  t.is(endpoint.status, 403);
  t.regex(await endpoint.text(), refusal("developer_settings"));

  const itemsBefore = (await stack.catalog.listItems({ storeId: m.storeId, limit: 50 })).items;
  for (const role of ["support", "viewer"] as const) {
    const product = await m.members[role].post("products/new", { title: "Forged", price: "1000", status: "published", stock: "5" });
    t.is(product.status, 403, role);
    t.regex(await product.text(), refusal("catalog"), role);
    const price = await m.members[role].post(`products/${itemsBefore[0]!.id}`, { price: "1", "was.price": String(itemsBefore[0]!.price) });
    t.is(price.status, 403, role);
    const archive = await m.members[role].post(`products/${itemsBefore[0]!.id}/archive`, {});
    t.is(archive.status, 403, role);
  }

  t.is(await m.statusOf(transfer.id), "pending");
  t.is((await stack.stores.listApiKeys({ storeId: m.storeId })).apiKeys.length, keysBefore);
  const { store: storeAfter } = await stack.stores.getStore({ id: m.storeId });
  t.deepEqual(storeAfter!.bankAccount, storeBefore!.bankAccount);
  t.deepEqual(storeAfter!.redirects, storeBefore!.redirects);
  t.is((await stack.webhooks!.listEndpoints({ storeId: m.storeId })).endpoints.length, endpointsBefore);
  t.deepEqual((await stack.catalog.listItems({ storeId: m.storeId, limit: 50 })).items, itemsBefore, "no product made or changed");
  t.deepEqual(await m.changes(), changesBefore, "nothing audited");

  // The roles that may still can.
  t.is((await m.members.support.post(`orders/${transfer.id}/mark-paid`, {})).status, 303);
  t.is(await m.statusOf(transfer.id), "paid");
});

// Serial: it compares the store's keys and audit log before and after.
test.serial("a developer's forged Create key asking for payments:write is 403 from the catalog, and makes no key", async (t) => {
  const keysBefore = (await stack.stores.listApiKeys({ storeId: m.storeId })).apiKeys.length;
  const changesBefore = await m.changes();
  for (const scopes of [["payments:write"], ["orders:read", "payments:write"]]) {
    const fields = new URLSearchParams([["name", "Forged refunds"], ...scopes.map((scope) => ["scopes", scope])]);
    const forged = await m.members.developer.post("api-keys", fields);
    t.is(forged.status, 403, scopes.join(","));
    const page = await forged.text();
    t.regex(page, /The developer role may not grant payments:write/);
    t.regex(page, /Nothing was changed/);
    t.notRegex(page, /sk_live_/, "no key shown");
  }
  const unknown = await m.members.developer.post("api-keys", { name: "Odd", scopes: "orders:delete" });
  t.is(unknown.status, 400);
  t.regex(await unknown.text(), /Scopes: unknown scope/);
  t.is((await stack.stores.listApiKeys({ storeId: m.storeId })).apiKeys.length, keysBefore, "no key was made");
  t.deepEqual(await m.changes(), changesBefore, "nothing audited");
  // What the role may grant, it may.
  t.is((await m.members.developer.post("api-keys", { name: "Catalog sync", scopes: "catalog:write" })).status, 303);
});

// Serial: it compares the store's team and audit log before and after.
test.serial("a forged post of any Team action by a role that is not an owner is 403, and the team is unchanged", async (t) => {
  await stack.accounts.inviteMember({ storeId: m.storeId, email: "pending@roles.example", role: "viewer" });
  const [pending] = (await stack.accounts.listInvitations({ storeId: m.storeId })).invitations;
  const team = async () => (await stack.accounts.listMembers({ storeId: m.storeId })).members.map((member) => `${member.email} ${member.role}`);
  const teamBefore = await team();
  const changesBefore = await m.changes();
  const viewerId = (await stack.accounts.listMembers({ storeId: m.storeId })).members.find((member) => member.role === "viewer" && member.status === "active")!.id;
  for (const role of ["developer", "support", "viewer"] as const) {
    for (const [path, fields] of [
      ["team/invitations", { email: `forged-${role}@evil.example`, role: "owner" }],
      [`team/${viewerId}/role`, { role: "owner" }],
      [`team/${viewerId}/remove`, {}],
      [`team/invitations/${pending!.id}/revoke`, {}],
    ] as const) {
      const forged = await m.members[role].post(path, fields);
      t.is(forged.status, 403, `${role} POST ${path}`);
      t.regex(await forged.text(), refusal("store_admin"), `${role} POST ${path}`);
    }
  }
  t.deepEqual(await team(), teamBefore, "nobody invited, promoted or removed");
  t.deepEqual((await stack.accounts.listInvitations({ storeId: m.storeId })).invitations.map((i) => i.id), [pending!.id], "the invitation still stands");
  t.deepEqual(await m.changes(), changesBefore, "nothing audited");
  // The owner may.
  t.is((await m.members.owner.post(`team/invitations/${pending!.id}/revoke`, {})).status, 303);
  t.deepEqual((await stack.accounts.listInvitations({ storeId: m.storeId })).invitations, []);
});
