// How a change made by a person or the operator reaches the store's audit log, for the
// CLI and the dashboard alike. The log lives in the catalog service; the change may be
// in another service, so the entry is written right after the change succeeds (and
// before a secret is shown, for a reveal). A change that succeeded but could not be
// audited is reported as such, never silently.
import { Code, ConnectError, type Client } from "@connectrpc/connect";
import type { AccountService } from "../../gen/catalog/v1/account_pb.js";
import type { AuditAction } from "../../common/audit.js";

export type AuditClient = Pick<Client<typeof AccountService>, "recordAudit">;

export interface AuditEntry {
  storeId: string;
  actor: string;
  action: AuditAction;
  target: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Thrown when the change is done but its audit entry could not be written. */
export class NotAudited extends Error {
  constructor(readonly entry: AuditEntry, cause: unknown) {
    super(`${entry.action} on ${entry.target} was done, but the audit log could not record it: ${(cause as Error).message}`);
  }
}

/** Writes one entry, retrying a few times while the catalog service is away. */
export async function recordAudit(audit: AuditClient, entry: AuditEntry): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await audit.recordAudit(entry);
      return;
    } catch (error) {
      const away = error instanceof ConnectError && (error.code === Code.Unavailable || error.code === Code.DeadlineExceeded);
      if (!away || attempt >= 4) throw error;
      await sleep(200 * 2 ** attempt);
    }
  }
}

/** Runs the change, then records it; `target` names what the change made or touched. */
export async function audited<T>(
  audit: AuditClient,
  entry: Omit<AuditEntry, "target">,
  target: string | ((result: T) => string),
  change: () => Promise<T>,
): Promise<T> {
  const result = await change();
  const full = { ...entry, target: typeof target === "string" ? target : target(result) };
  try {
    await recordAudit(audit, full);
  } catch (error) {
    throw new NotAudited(full, error);
  }
  return result;
}
