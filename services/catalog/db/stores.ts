// The stores table: a merchant's store, its plan and its settings (bank account,
// redirect defaults). Like every module of db/, each function takes `db: Db`, a pool or
// a transaction (postgres.js `ISql`), so the caller decides what runs in one
// transaction (platform/db.ts `transaction`). Plans are described in docs/api.md.
import type { Db } from "../../../platform/db.js";
import type { PlanName } from "../../../common/plans.js";

export interface BankAccountRow {
  bank_name: string;
  bank_code: string;
  account_number: string;
  account_holder: string;
}

export interface StoreRow {
  id: string;
  name: string;
  plan: PlanName;
  bank_name: string | null;
  bank_code: string | null;
  account_number: string | null;
  account_holder: string | null;
  success_url: string | null;
  return_url: string | null;
  error_url: string | null;
  /** Buyers are mailed (docs/payments.md#buyer-mail). */
  email_buyers: boolean;
  buyer_language: "id" | "en";
  created_at: Date;
}

export interface RedirectsRow {
  success_url: string | null;
  return_url: string | null;
  error_url: string | null;
}

/** What the store tells its buyers; each absent field is left as it is. */
export interface BuyerSettings {
  email_buyers?: boolean;
  buyer_language?: "id" | "en";
}

/** What UpdateStoreSettings replaces (the buyer settings only where given). */
export interface StoreSettings {
  bank: BankAccountRow | null;
  redirects: RedirectsRow;
  buyers?: BuyerSettings;
}

export interface NewStore extends StoreSettings {
  name: string;
  plan: PlanName;
}

export async function insertStore(db: Db, store: NewStore): Promise<StoreRow> {
  const [row] = await db<StoreRow[]>`
    insert into stores ${db({
      name: store.name,
      plan: store.plan,
      bank_name: store.bank?.bank_name ?? null,
      bank_code: store.bank?.bank_code ?? null,
      account_number: store.bank?.account_number ?? null,
      account_holder: store.bank?.account_holder ?? null,
      ...store.redirects,
    })}
    returning *`;
  return row!;
}

/** `forUpdate`: locked until the caller's transaction ends, so a change can record what it replaced. */
export async function findStore(db: Db, id: string, { forUpdate = false } = {}): Promise<StoreRow | undefined> {
  const [row] = await db<StoreRow[]>`select * from stores where id = ${id} ${forUpdate ? db`for update` : db``}`;
  return row;
}

export async function updateStorePlan(db: Db, id: string, plan: PlanName): Promise<StoreRow | undefined> {
  const [row] = await db<StoreRow[]>`
    update stores set plan = ${plan}, updated_at = clock_timestamp() where id = ${id} returning *`;
  return row;
}

/** Replaces the bank account (null: none) and the redirect defaults; undefined when there is no such store. */
export async function updateStoreSettings(db: Db, id: string, settings: StoreSettings): Promise<StoreRow | undefined> {
  const [row] = await db<StoreRow[]>`
    update stores set ${db({
      bank_name: settings.bank?.bank_name ?? null,
      bank_code: settings.bank?.bank_code ?? null,
      account_number: settings.bank?.account_number ?? null,
      account_holder: settings.bank?.account_holder ?? null,
      ...settings.redirects,
      ...settings.buyers,
    })}, updated_at = clock_timestamp()
    where id = ${id} returning *`;
  return row;
}
