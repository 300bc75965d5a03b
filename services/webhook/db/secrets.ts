// The endpoint_secrets table: each endpoint's signing secrets, sealed (secret-box.ts);
// the live ones sign. Every function takes `db: Db`, a pool or a transaction
// (postgres.js `ISql`), so the caller decides what runs in one transaction.
import type { Db } from "../../../platform/db.js";

export async function insertSecret(db: Db, endpointId: string, sealedSecret: string): Promise<void> {
  await db`insert into endpoint_secrets (endpoint_id, secret) values (${endpointId}, ${sealedSecret})`;
}

/** Every secret of the endpoint that still signs stops now. */
export async function retireSecretsNow(db: Db, endpointId: string): Promise<void> {
  await db`
    update endpoint_secrets set expires_at = clock_timestamp()
    where endpoint_id = ${endpointId} and (expires_at is null or expires_at > clock_timestamp())`;
}

/** Every secret of the endpoint that would sign past `until` stops then (none is extended). */
export async function retireSecretsAt(db: Db, endpointId: string, until: Date): Promise<void> {
  await db`
    update endpoint_secrets set expires_at = ${until}
    where endpoint_id = ${endpointId} and (expires_at is null or expires_at > ${until})`;
}

/** The endpoint's sealed secrets that sign now, newest first: for one endpoint, or per leased delivery (deliveries.ts leaseDue). */
export const liveSecretsOf = (db: Db, endpointId: ReturnType<Db>) => db`
  select s.secret from endpoint_secrets s
  where s.endpoint_id = ${endpointId} and (s.expires_at is null or s.expires_at > clock_timestamp())
  order by s.created_at desc`;

/** Sealed secrets that sign now, newest first. */
export async function liveSecrets(db: Db, endpointId: string): Promise<string[]> {
  const rows = await db<{ secret: string }[]>`${liveSecretsOf(db, db`${endpointId}::uuid`)}`;
  return rows.map((row) => row.secret);
}

/** Forgets every secret of the endpoint, live or retired. */
export async function deleteSecrets(db: Db, endpointId: string): Promise<void> {
  await db`delete from endpoint_secrets where endpoint_id = ${endpointId}`;
}
