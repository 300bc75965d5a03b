// Upgrading a catalog whose invitations made members at once: on a database of the
// test's own, migrated as the release before, with the rows it wrote; then upgraded and
// read through the routes in memory. What nobody took up becomes a pending invitation
// with its role; members who joined stay; a link whose member had left stays unknown.
import test from "ava";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createClient, createRouterTransport } from "@connectrpc/connect";
import { OPERATOR } from "../../../common/actor.js";
import { AccountService } from "../../../gen/catalog/v1/account_pb.js";
import { generateToken, hashToken } from "../../../services/catalog/accounts/tokens.js";
import { createCatalogDomain } from "../../../services/catalog/domain.js";
import { createCatalogRoutes } from "../../../services/catalog/routes.js";
import { CATALOG_SCHEMA } from "../../../services/catalog/service.js";
import { createLogger } from "../../../platform/logger.js";
import { actorInterceptor } from "../../../platform/rpc-client.js";
import { schemaBefore } from "../../helpers/migrations.js";
import { TEST_SCRYPT } from "../../helpers/scrypt.js";

const MIGRATIONS = path.join(path.dirname(fileURLToPath(import.meta.url)), "../../../services/catalog/migrations");
const ADDED = "006_invitation_role.sql";

test("the upgrade turns memberships nobody accepted into pending invitations with their role, and keeps the members who joined", async (t) => {
  const { sql, upgrade } = await schemaBefore(t, CATALOG_SCHEMA, MIGRATIONS, ADDED);
  const [shop, elsewhere] = await sql<{ id: string }[]>`insert into stores (name, plan) values ('Toko Lama', 'growth'), ('Toko Lain', 'growth') returning id`;
  const member = async (email: string, password: boolean, signedInDaysAgo: number | null) => {
    const [row] = await sql<{ id: string }[]>`
      insert into members (email, password_hash, last_signed_in_at)
      values (${email}, ${password ? "scrypt$old" : null}, ${signedInDaysAgo === null ? null : sql`now() - ${signedInDaysAgo} * interval '1 day'`})
      returning id`;
    return row!.id;
  };
  const membership = (storeId: string, memberId: string, role: string, daysAgo: number) =>
    sql`insert into memberships (store_id, member_id, role, created_at) values (${storeId}, ${memberId}, ${role}, now() - ${daysAgo} * interval '1 day')`;
  const invitation = async (storeId: string, memberId: string, used: boolean) => {
    const token = generateToken();
    await sql`
      insert into invitations (token_hash, member_id, store_id, expires_at, used_at)
      values (${hashToken(token)}, ${memberId}, ${storeId}, now() + interval '2 days', ${used ? sql`now() - interval '3 days'` : null})`;
    return token;
  };

  // An owner who accepted and signs in; someone new who never chose a password; someone
  // with an account in another store whose membership here came with the invitation and
  // who has not signed in since; a member who accepted and later left.
  const owner = await member("pemilik@lama.example", true, 0);
  await membership(shop!.id, owner, "owner", 3);
  const ownerLink = await invitation(shop!.id, owner, true);
  const fresh = await member("baru@lama.example", false, null);
  await membership(shop!.id, fresh, "viewer", 1);
  const freshLink = await invitation(shop!.id, fresh, false);
  const other = await member("lain@lama.example", true, 2);
  await membership(elsewhere!.id, other, "owner", 30);
  await membership(shop!.id, other, "developer", 1);
  const otherLink = await invitation(shop!.id, other, false);
  const left = await member("keluar@lama.example", true, 0);
  await membership(elsewhere!.id, left, "viewer", 30);
  const leftLink = await invitation(shop!.id, left, true);

  t.true((await upgrade()).includes(ADDED), "the upgrade applies it");
  const domain = createCatalogDomain({ sql, scryptParams: TEST_SCRYPT, logger: createLogger("test", "silent") });
  const transport = createRouterTransport(createCatalogRoutes(domain), { transport: { interceptors: [actorInterceptor(OPERATOR)] } });
  const accounts = createClient(AccountService, transport);

  t.deepEqual((await accounts.listMembers({ storeId: shop!.id })).members.map((m) => [m.email, m.role]), [["pemilik@lama.example", "owner"]]);
  t.deepEqual((await accounts.listInvitations({ storeId: shop!.id })).invitations.map((i) => [i.email, i.role]).sort(), [
    ["baru@lama.example", "viewer"],
    ["lain@lama.example", "developer"],
  ]);
  t.deepEqual((await accounts.listMembers({ storeId: elsewhere!.id })).members.map((m) => m.email), ["keluar@lama.example", "lain@lama.example"], "other stores keep their members");
  const states = await Promise.all([ownerLink, freshLink, otherLink, leftLink].map(async (token) => (await accounts.checkLink({ kind: "invitation", token })).state));
  t.deepEqual(states, ["used", "pending", "pending", "unknown"]);

  const accepted = await accounts.acceptInvitation({ token: otherLink, password: "kata sandi rahasia" });
  t.deepEqual((await accounts.resolveSession({ token: accepted.session!.token })).stores.map((s) => [s.name, s.role]), [
    ["Toko Lain", "owner"],
    ["Toko Lama", "developer"],
  ]);
});
