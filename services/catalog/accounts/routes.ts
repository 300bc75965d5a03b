// AccountService's gRPC handlers (CONTRACT §10): argument checks, one call into the
// accounts' domain modules, the response. ../routes.ts registers them with the catalog's
// other services; SQL is in account-store.ts, which this file never touches.
import type { ConnectRouter } from "@connectrpc/connect";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { AccountService } from "../../../gen/catalog/v1/account_pb.js";
import { requireUuid } from "../validation.js";
import { requireAction, requireActor, requireAuditLimit, requireTarget, type Audit } from "./audit.js";
import { requireEmail } from "./member-email.js";
import type { MemberSessions } from "./member-sessions.js";
import type { Members } from "./members.js";
import { auditEntryMessage, memberMessage, sessionMessage } from "./messages.js";
import { requirePassword } from "./passwords.js";

export interface AccountRouteDeps {
  members: Pick<Members, "invite" | "accept" | "list" | "remove">;
  sessions: Pick<MemberSessions, "signIn" | "resolve" | "end">;
  audit: Pick<Audit, "record" | "list">;
}

export function createAccountRoutes({ members, sessions, audit }: AccountRouteDeps) {
  return (router: ConnectRouter) => {
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
