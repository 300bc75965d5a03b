// The catalog service in memory for its router tests: the real routes and domain over
// the fake stores, every call made as whoever `as.actor` names at the time (the
// operator unless a test says), one store made by the operator, and members of it by
// role.
import { createClient, createRouterTransport } from "@connectrpc/connect";
import { OPERATOR, type Actor } from "../../common/actor.js";
import type { Role } from "../../common/roles.js";
import { AccountService } from "../../gen/catalog/v1/account_pb.js";
import { CatalogService, StoreService } from "../../gen/catalog/v1/catalog_pb.js";
import { createCatalogDomain } from "../../services/catalog/domain.js";
import { createCatalogRoutes } from "../../services/catalog/routes.js";
import { createLogger } from "../../platform/logger.js";
import { actorInterceptor } from "../../platform/rpc-client.js";
import { createFakeAccountStore } from "./fake-account-store.js";
import { createFakeCatalogStore } from "./fake-catalog-store.js";
import { TEST_SCRYPT } from "./scrypt.js";

export async function catalogRouterSetup(storeName: string) {
  const as: { actor: Actor | undefined } = { actor: OPERATOR };
  const catalog = createFakeCatalogStore();
  const accountsFake = createFakeAccountStore(catalog);
  const domain = createCatalogDomain({ sql: catalog.sql, store: catalog.store, accountStore: accountsFake.store, scryptParams: TEST_SCRYPT, logger: createLogger("test", "silent") });
  const transport = createRouterTransport(createCatalogRoutes(domain), { transport: { interceptors: [actorInterceptor(() => as.actor)] } });
  const stores = createClient(StoreService, transport);
  const items = createClient(CatalogService, transport);
  const accounts = createClient(AccountService, transport);
  /** Runs `work` as the operator (setting things up), whoever acts otherwise. */
  const asOperator = async <T>(work: () => Promise<T>): Promise<T> => {
    const saved = as.actor;
    as.actor = OPERATOR;
    try {
      return await work();
    } finally {
      as.actor = saved;
    }
  };
  const storeId = (await stores.createStore({ name: storeName })).store!.id;
  /** A member of the store with `role` (invited and accepted), as the actor the dashboard states for them. */
  const member = async (role: Role, email = `${role}.${Math.random().toString(36).slice(2)}@example.co.id`): Promise<Actor & { kind: "member" }> => {
    const { member, invitationToken } = await asOperator(() => accounts.inviteMember({ storeId, email, role }));
    await accounts.acceptInvitation({ token: invitationToken, password: "kata sandi rahasia" });
    return { kind: "member", memberId: member!.id, role, email };
  };
  return { as, catalog, accountsFake, stores, items, accounts, storeId, asOperator, member };
}
