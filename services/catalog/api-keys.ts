// API keys (docs/keys.md#format): `sk_live_` or `sk_test_` and random base62, shown once,
// stored as a hash with its mode; authentication finds the unrevoked key by its hash and
// answers with its store's plan and its mode (docs/keys.md#test-mode).
import { createHash, randomBytes } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";
import { auditActorName, type Actor } from "../../common/actor.js";
import { auditTarget } from "../../common/audit.js";
import type { PlanName } from "../../common/plans.js";
import { KEY_MODE_NAMES, KEY_MODE_PREFIXES, type KeyMode } from "../../common/key-mode.js";
import { grantableScopes, grantRefusal, isScope, parseScopes, SCOPES, type Scope } from "../../common/scopes.js";
import { auditEntry } from "../../platform/audit-log.js";
import { transaction, type Sql } from "../../platform/db.js";
import { fieldError } from "../../platform/field-errors.js";
import type { Logger } from "../../platform/logger.js";
import * as keys from "./db/api-keys.js";
import type { ApiKeyRow } from "./db/api-keys.js";
import { insertAuditEntries } from "./db/audit.js";
import type { Stores } from "./merchant-stores.js";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const RANDOM_LENGTH = 40;
/** What a well-formed key of either mode looks like; anything else is refused before any lookup. */
export const API_KEY_PATTERN = /^sk_(live|test)_[0-9A-Za-z]{32,128}$/;

/**
 * `last_used_at` is refreshed at most this often, so authentication stays a read on
 * the hot path (the dashboard shows it "within a minute", docs/dashboard.md#api-keys).
 */
export const LAST_USED_RESOLUTION_SECONDS = 60;

/** The mode's prefix (`sk_live_`, `sk_test_`) and 40 base62 characters (~238 bits), drawn without modulo bias. */
export function generateApiKey(mode: KeyMode = "live"): string {
  let out = "";
  while (out.length < RANDOM_LENGTH) {
    for (const byte of randomBytes(64)) {
      // 248 = 62 * 4: bytes above it would favour the first characters.
      if (byte < 248 && out.length < RANDOM_LENGTH) out += ALPHABET[byte % 62];
    }
  }
  return KEY_MODE_PREFIXES[mode] + out;
}

export function hashApiKey(key: string): Buffer {
  return createHash("sha256").update(key, "utf8").digest();
}

/** The part of a key shown in listings: its mode's prefix (both are 8 characters) and 4 more. */
export function keyPrefix(key: string): string {
  return key.slice(0, KEY_MODE_PREFIXES.live.length + 4);
}

/** A key's label: trimmed, at most 100 characters, may be empty. */
export function keyName(name: string): string {
  return name.trim().slice(0, 100);
}

/** What the audit log calls a key: its name, or its prefix when it has none. */
export function keyLabel(key: Pick<ApiKeyRow, "name" | "prefix">): string {
  return key.name || key.prefix;
}

export interface AuthenticatedKey {
  keyId: string;
  storeId: string;
  plan: PlanName;
  scopes: Scope[];
  /** False for a test key: its calls see and make test data only. */
  livemode: boolean;
}

/** What `actor` may put on a key: a member what their role may do, the operator everything. */
function grantable(actor: Actor): readonly Scope[] {
  switch (actor.kind) {
    case "member":
      return grantableScopes(actor.role);
    case "api_key":
      return [];
    default:
      return SCOPES;
  }
}

/**
 * The scopes a new key gets: those asked for, or when none are, all that `actor` may
 * grant. INVALID_ARGUMENT naming `scopes` for an unknown one; PERMISSION_DENIED naming
 * the first scope beyond what the actor may grant, whatever the form offered.
 */
export function scopesToGrant(asked: readonly string[], actor: Actor): Scope[] {
  const allowed = grantable(actor);
  const scopes = parseScopes(asked);
  if (!scopes) throw fieldError("scopes", `unknown scope "${asked.find((scope) => !isScope(scope))}"; scopes are ${SCOPES.join(", ")}`);
  const wanted = scopes.length > 0 ? scopes : [...allowed];
  const beyond = wanted.find((scope) => !allowed.includes(scope));
  if (beyond || wanted.length === 0) {
    const who = actor.kind === "member" ? `the ${actor.role} role` : "this caller";
    throw new ConnectError(`${who} may not ${beyond ? grantRefusal(beyond) : "grant any scope"}`, Code.PermissionDenied);
  }
  return wanted;
}

export function createApiKeys({ sql, stores, logger }: { sql: Sql; stores: Pick<Stores, "get">; logger: Logger }) {
  return {
    /**
     * A new key for the store with the scopes asked for (scopesToGrant), live unless
     * `testMode`: the row, and the key itself, which is never stored. Audited as `actor`,
     * who is named as its maker, with the key's mode.
     */
    async create(
      storeId: string,
      name: string,
      askedScopes: readonly string[],
      actor: Actor,
      { testMode = false }: { testMode?: boolean } = {},
    ): Promise<{ apiKey: ApiKeyRow; secret: string }> {
      const scopes = scopesToGrant(askedScopes, actor);
      const owner = await stores.get(storeId);
      const mode: KeyMode = testMode ? "test" : "live";
      const secret = generateApiKey(mode);
      const apiKey = await transaction(sql, async (tx) => {
        const row = await keys.insertApiKey(tx, {
          store_id: owner.id,
          name: keyName(name),
          prefix: keyPrefix(secret),
          key_hash: hashApiKey(secret),
          scopes,
          livemode: mode === "live",
          created_by_member: actor.kind === "member" ? actor.memberId : null,
          created_by: auditActorName(actor),
        });
        // The mode as a field of the new key, so the log says which kind of key was made.
        const changes = [{ field: "mode", before: "", after: KEY_MODE_NAMES[mode] }];
        await insertAuditEntries(tx, [auditEntry(owner.id, actor, "key.created", auditTarget("key", row.id), { label: keyLabel(row), changes })]);
        return row;
      });
      logger.info({ storeId: owner.id, keyId: apiKey.id, scopes, livemode: apiKey.livemode }, "api key created");
      return { apiKey, secret };
    },

    /** Undefined when the store has no such key. Revoking twice keeps the first time. Audited as `actor`. */
    async revoke(storeId: string, keyId: string, actor: Actor): Promise<ApiKeyRow | undefined> {
      const row = await transaction(sql, async (tx) => {
        const revoked = await keys.revokeApiKey(tx, storeId, keyId);
        if (revoked) await insertAuditEntries(tx, [auditEntry(revoked.store_id, actor, "key.revoked", auditTarget("key", revoked.id), { label: keyLabel(revoked) })]);
        return revoked;
      });
      if (row) logger.info({ storeId: row.store_id, keyId: row.id }, "api key revoked");
      return row;
    },

    /** The store's keys, newest first; NOT_FOUND for an unknown store. */
    async list(storeId: string): Promise<ApiKeyRow[]> {
      const owner = await stores.get(storeId);
      return keys.listApiKeys(sql, owner.id);
    },

    /** The unrevoked key's id, store, plan, scopes and mode; UNAUTHENTICATED for a malformed, unknown or revoked key. */
    async authenticate(secret: string): Promise<AuthenticatedKey> {
      if (!API_KEY_PATTERN.test(secret)) throw new ConnectError("malformed key", Code.Unauthenticated);
      const found = await keys.findLiveKey(sql, hashApiKey(secret), LAST_USED_RESOLUTION_SECONDS);
      if (!found) throw new ConnectError("unknown or revoked key", Code.Unauthenticated);
      if (found.stale) await keys.touchApiKey(sql, found.key_id, LAST_USED_RESOLUTION_SECONDS);
      // The mode is the row's, written when the key was made; the prefix only shows it.
      return { keyId: found.key_id, storeId: found.store_id, plan: found.plan, scopes: found.scopes, livemode: found.livemode };
    },
  };
}

export type ApiKeys = ReturnType<typeof createApiKeys>;
