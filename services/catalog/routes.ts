// The catalog service's gRPC handlers: argument checks, one domain call, the response.
// The rules are in the domain modules (domain.ts wires them); SQL is in store.ts, which
// this file never touches.
import type { ConnectRouter } from "@connectrpc/connect";
import { Code, ConnectError } from "@connectrpc/connect";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { AccountService } from "../../gen/catalog/v1/account_pb.js";
import { CatalogService, StoreService } from "../../gen/catalog/v1/catalog_pb.js";
import { planFromName } from "../../common/plans.js";
import type { ApiKeys } from "./api-keys.js";
import { requireAction, requireActor, requireAuditLimit, requireTarget, type Audit } from "./audit.js";
import { apiKeyMessage, auditEntryMessage, itemMessage, memberMessage, sessionMessage, storeMessage } from "./convert.js";
import { requireStatus, type Items } from "./items.js";
import type { Members } from "./members.js";
import { requirePassword } from "./passwords.js";
import type { Sessions } from "./sessions.js";
import { newStoreFrom, requirePlan, storeSettingsFrom, type Stores } from "./stores.js";
import { requireEmail, requirePage, requireUuid } from "./validation.js";

export interface CatalogRouteDeps {
  stores: Pick<Stores, "create" | "get" | "setPlan" | "updateSettings">;
  apiKeys: Pick<ApiKeys, "create" | "revoke" | "list" | "authenticate">;
  items: Pick<Items, "createProduct" | "createBundle" | "setPrice" | "setStatus" | "listPublished" | "getMany" | "getWithStore">;
  members: Pick<Members, "invite" | "accept" | "list" | "remove">;
  sessions: Pick<Sessions, "signIn" | "resolve" | "end">;
  audit: Pick<Audit, "record" | "list">;
}

export function createCatalogRoutes({ stores, apiKeys, items, members, sessions, audit }: CatalogRouteDeps) {
  return (router: ConnectRouter) => {
    router.service(StoreService, {
      async createStore(request) {
        return { store: storeMessage(await stores.create(newStoreFrom(request))) };
      },

      async getStore(request) {
        return { store: storeMessage(await stores.get(request.id)) };
      },

      async setStorePlan(request) {
        const plan = requirePlan(request.plan);
        const row = await stores.setPlan(requireUuid(request.storeId, "store_id"), plan);
        if (!row) throw new ConnectError(`store ${request.storeId} not found`, Code.NotFound);
        return { store: storeMessage(row) };
      },

      async updateStoreSettings(request) {
        const storeId = requireUuid(request.storeId, "store_id");
        return { store: storeMessage(await stores.updateSettings(storeId, storeSettingsFrom(request))) };
      },

      async createApiKey(request) {
        const { apiKey, secret } = await apiKeys.create(request.storeId, request.name);
        return { apiKey: apiKeyMessage(apiKey), secret };
      },

      async revokeApiKey(request) {
        const row = await apiKeys.revoke(requireUuid(request.storeId, "store_id"), requireUuid(request.keyId, "key_id"));
        if (!row) throw new ConnectError(`key ${request.keyId} not found in store ${request.storeId}`, Code.NotFound);
        return { apiKey: apiKeyMessage(row) };
      },

      async listApiKeys(request) {
        const rows = await apiKeys.list(requireUuid(request.storeId, "store_id"));
        return { apiKeys: rows.map(apiKeyMessage) };
      },

      async authenticateApiKey(request) {
        const key = await apiKeys.authenticate(request.secret);
        return { keyId: key.keyId, storeId: key.storeId, plan: planFromName(key.plan) };
      },
    });

    router.service(CatalogService, {
      async createProduct(request) {
        return { item: itemMessage(await items.createProduct(request)) };
      },

      async createBundle(request) {
        return { item: itemMessage(await items.createBundle(request)) };
      },

      async setItemPrice(request) {
        const row = await items.setPrice(requireUuid(request.storeId, "store_id"), requireUuid(request.itemId, "item_id"), request.price);
        if (!row) throw new ConnectError(`item ${request.itemId} not found`, Code.NotFound);
        return { item: itemMessage(row) };
      },

      async setItemStatus(request) {
        const status = requireStatus(request.status);
        const row = await items.setStatus(requireUuid(request.storeId, "store_id"), requireUuid(request.itemId, "item_id"), status);
        if (!row) throw new ConnectError(`item ${request.itemId} not found`, Code.NotFound);
        return { item: itemMessage(row) };
      },

      async listPublishedItems(request) {
        const storeId = requireUuid(request.storeId, "store_id");
        const { limit, offset } = requirePage(request);
        const page = await items.listPublished(storeId, limit, offset);
        return { items: page.items.map(itemMessage), hasMore: page.hasMore };
      },

      async getItems(request) {
        const rows = await items.getMany(requireUuid(request.storeId, "store_id"), request.ids);
        return { items: rows.map(itemMessage) };
      },

      async getOrderCatalog(request) {
        const found = await items.getWithStore(request.storeId, request.ids);
        return { store: storeMessage(found.store), items: found.items.map(itemMessage) };
      },
    });

    router.service(AccountService, {
      async inviteMember(request) {
        const storeId = requireUuid(request.storeId, "store_id");
        const invitation = await members.invite(storeId, requireEmail(request.email, "email"));
        return { member: memberMessage(invitation.member), invitationToken: invitation.token, expiresAt: timestampFromDate(invitation.expiresAt) };
      },

      async acceptInvitation(request) {
        // Before the token: a too-short password is the caller's to fix, whatever the link.
        const password = requirePassword(request.password);
        const { member, session } = await members.accept(request.token, password);
        return { member: memberMessage(member), session: sessionMessage(session) };
      },

      async signIn(request) {
        const { member, session } = await sessions.signIn(request.email, request.password);
        return { member: memberMessage(member), session: sessionMessage(session) };
      },

      async resolveSession(request) {
        const resolved = await sessions.resolve(request.token);
        return { member: memberMessage(resolved.member), stores: resolved.stores, sessionId: resolved.sessionId };
      },

      async endSession(request) {
        await sessions.end(request.token);
        return {};
      },

      async listMembers(request) {
        const rows = await members.list(requireUuid(request.storeId, "store_id"));
        return { members: rows.map(memberMessage) };
      },

      async removeMember(request) {
        const member = await members.remove(requireUuid(request.storeId, "store_id"), requireUuid(request.memberId, "member_id"));
        return { member: memberMessage(member) };
      },

      async recordAudit(request) {
        const storeId = requireUuid(request.storeId, "store_id");
        const entry = {
          actor: requireActor(request.actor),
          action: requireAction(request.action),
          target: requireTarget(request.target),
        };
        return { entry: auditEntryMessage(await audit.record(storeId, entry)) };
      },

      async listAudit(request) {
        const rows = await audit.list(requireUuid(request.storeId, "store_id"), requireAuditLimit(request.limit));
        return { entries: rows.map(auditEntryMessage) };
      },
    });
  };
}
