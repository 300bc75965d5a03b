// The catalog service in memory for its router tests: the real routes and domain over a
// database of the test's own (template-db.ts), every call made as whoever `as.actor`
// names at the time (the operator unless a test says), one store made by the operator,
// and members of it by role. A test reads what was stored with SQL on `sql`.
import type { ExecutionContext } from "ava";
import { createClient, createRouterTransport } from "@connectrpc/connect";
import { OPERATOR, type Actor } from "../../common/actor.js";
import type { Role } from "../../common/roles.js";
import { AccountService } from "../../gen/catalog/v1/account_pb.js";
import { CatalogService, StoreService } from "../../gen/catalog/v1/catalog_pb.js";
import { createCatalogDomain } from "../../services/catalog/domain.js";
import { createCatalogRoutes } from "../../services/catalog/routes.js";
import { CATALOG_SCHEMA } from "../../services/catalog/service.js";
import type { Sql } from "../../platform/db.js";
import { createLogger } from "../../platform/logger.js";
import { actorInterceptor } from "../../platform/rpc-client.js";
import { TEST_SCRYPT } from "./scrypt.js";
import { migratedDatabase } from "./template-db.js";

/**
 * A pool on a fresh, migrated database of the test's own, searching the catalog's
 * schema. Two connections unless told: the routes call one statement or one transaction
 * at a time, and every test of a file holds its own pool at once (a test of concurrent
 * calls asks for more).
 */
export async function catalogDatabase(t: ExecutionContext, max = 2): Promise<Sql> {
  return (await migratedDatabase(t)).pool(CATALOG_SCHEMA, max);
}

/**
 * Time passes by `seconds` for everything the catalog stored: every timestamp (and
 * array of them) in its schema moves back, so expiry, idle limits and the sign-in lock
 * run out against the database's clock as they would in production.
 */
export async function passTime(sql: Sql, seconds: number): Promise<void> {
  const columns = await sql<{ table_name: string; column_name: string; is_array: boolean }[]>`
    select c.table_name, c.column_name, c.udt_name = '_timestamptz' as is_array
    from information_schema.columns c
    join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name and t.table_type = 'BASE TABLE'
    where c.table_schema = current_schema() and c.udt_name in ('timestamptz', '_timestamptz')`;
  const byTable = new Map<string, string[]>();
  for (const { table_name: table, column_name: column, is_array: isArray } of columns) {
    const moved = isArray
      ? `"${column}" = case when "${column}" is null then null else array(select a - $1::float8 * interval '1 second' from unnest("${column}") with ordinality u(a, n) order by n) end`
      : `"${column}" = "${column}" - $1::float8 * interval '1 second'`;
    byTable.set(table, [...(byTable.get(table) ?? []), moved]);
  }
  await sql.begin(async (tx) => {
    for (const [table, sets] of byTable) await tx.unsafe(`update "${table}" set ${sets.join(", ")}`, [seconds]);
  });
}

export async function catalogRouterSetup(t: ExecutionContext, storeName: string, { poolSize = 2 } = {}) {
  const as: { actor: Actor | undefined } = { actor: OPERATOR };
  const sql = await catalogDatabase(t, poolSize);
  const domain = createCatalogDomain({ sql, scryptParams: TEST_SCRYPT, logger: createLogger("test", "silent") });
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
  return { as, sql, domain, stores, items, accounts, storeId, asOperator, member };
}
