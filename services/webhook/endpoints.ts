// Webhook endpoints (CONTRACT §6): one per store, an https:// URL (http:// only when
// configured), a fresh secret printed once on every set, and rotation where the old
// secrets keep signing for the overlap.
import { Code, ConnectError } from "@connectrpc/connect";
import type { Logger } from "../lib/logger.js";
import type { SecretBox } from "./secret-box.js";
import { generateSecret } from "./signing.js";
import type { EndpointRow, Pool } from "./store.js";
import type * as sqlStore from "./store.js";

export const MAX_URL_LENGTH = 2048;

/** An endpoint's URL: absolute, https:// (or http:// when allowed), no credentials, at most 2048 characters. */
export function checkEndpointUrl(raw: string, allowHttp: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConnectError("url must be an absolute URL", Code.InvalidArgument);
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && allowHttp)) {
    throw new ConnectError("url must be https:// (http:// only with WEBHOOK_ALLOW_HTTP)", Code.InvalidArgument);
  }
  if (url.username || url.password) throw new ConnectError("url must not carry credentials", Code.InvalidArgument);
  if (raw.length > MAX_URL_LENGTH) {
    throw new ConnectError(`url must be at most ${MAX_URL_LENGTH} characters`, Code.InvalidArgument);
  }
  return url;
}

export type EndpointsStore = Pick<
  typeof sqlStore,
  "transaction" | "upsertEndpoint" | "lockEndpointOfStore" | "insertSecret" | "retireSecretsNow" | "retireSecretsAt"
>;

export function createEndpoints(deps: {
  sql: Pool;
  store: EndpointsStore;
  logger: Logger;
  box: SecretBox;
  allowHttp: boolean;
  /** How long rotated-out secrets keep signing. */
  rotationOverlapMs: number;
}) {
  const { sql, store, logger, box } = deps;
  return {
    /** Sets the store's endpoint (enabled again) with a new secret; the old ones stop signing at once. */
    async set(storeId: string, rawUrl: string): Promise<{ endpoint: EndpointRow; secret: string }> {
      const url = checkEndpointUrl(rawUrl, deps.allowHttp);
      const secret = generateSecret();
      const sealed = box.seal(secret);
      const endpoint = await store.transaction(sql, async (tx) => {
        const endpoint = await store.upsertEndpoint(tx, storeId, url.toString());
        await store.retireSecretsNow(tx, endpoint.id);
        await store.insertSecret(tx, endpoint.id, sealed);
        return endpoint;
      });
      logger.info({ storeId, endpointId: endpoint.id, host: url.host }, "webhook endpoint set");
      return { endpoint, secret };
    },

    /** A new secret; the current ones keep signing until `previousExpiresAt`. Undefined when the store has no endpoint. */
    async rotate(storeId: string): Promise<{ endpoint: EndpointRow; secret: string; previousExpiresAt: Date } | undefined> {
      const secret = generateSecret();
      const sealed = box.seal(secret);
      const rotated = await store.transaction(sql, async (tx) => {
        const endpoint = await store.lockEndpointOfStore(tx, storeId);
        if (!endpoint) return undefined;
        const until = new Date(Date.now() + deps.rotationOverlapMs);
        await store.retireSecretsAt(tx, endpoint.id, until);
        await store.insertSecret(tx, endpoint.id, sealed);
        return { endpoint, previousExpiresAt: until };
      });
      if (!rotated) return undefined;
      logger.info({ storeId, endpointId: rotated.endpoint.id }, "webhook secret rotated");
      return { ...rotated, secret };
    },
  };
}

export type Endpoints = ReturnType<typeof createEndpoints>;
