// AccountService's gRPC handlers (docs/dashboard.md#accounts): argument checks, one call into the
// accounts' domain modules, the response. ../routes.ts registers them with the catalog's
// other services; SQL is in ../db/, which this file never touches.
import type { ConnectRouter } from "@connectrpc/connect";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { AccountService } from "../../../gen/catalog/v1/account_pb.js";
import { DEFAULT_INVITE_ROLE, isRole, ROLES, type Role } from "../../../common/roles.js";
import { requirePermission } from "../../../platform/rpc-actor.js";
import { fieldError, requireStoreId, requireUuid } from "../validation.js";
import { auditQuery } from "../../../platform/audit-log.js";
import type { Audit } from "./audit.js";
import { requireEmail } from "./member-email.js";
import type { MemberSessions } from "./member-sessions.js";
import type { Members } from "./members.js";
import { auditEntryMessage, invitationMessage, memberMessage, sessionMessage } from "./messages.js";
import type { PasswordResets } from "./password-resets.js";
import { requirePassword } from "./passwords.js";

export interface AccountRouteDeps {
  members: Pick<Members, "invite" | "accept" | "list" | "remove" | "setRole" | "invitations" | "revokeInvitation" | "linkState">;
  passwordResets: Pick<PasswordResets, "request" | "linkState" | "reset">;
  sessions: Pick<MemberSessions, "signIn" | "resolve" | "end">;
  audit: Pick<Audit, "list">;
}

/** One of the roles of docs/team.md#roles; INVALID_ARGUMENT naming `role` otherwise. */
export function requireRole(role: string): Role {
  if (!isRole(role)) throw fieldError("role", `must be one of ${ROLES.join(", ")}`);
  return role;
}

// Team changes (invite, remove, change a role) are the store_admin permission's (docs/team.md#roles):
// the service checks the actor before anything is written, and audits with the change.
export function createAccountRoutes({ members, passwordResets, sessions, audit }: AccountRouteDeps) {
  const LINK_KINDS = { invitation: members.linkState, password_reset: passwordResets.linkState };
  return (router: ConnectRouter) => {
    router.service(AccountService, {
      async inviteMember(request, context) {
        const storeId = requireStoreId(request);
        const email = requireEmail(request.email, "email");
        const role = request.role === undefined ? DEFAULT_INVITE_ROLE : requireRole(request.role);
        const invitation = await members.invite(storeId, email, role, requirePermission(context, "store_admin"));
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
        return { member: memberMessage(resolved.member), stores: resolved.stores.map(({ id, name, role }) => ({ id, name, role })), sessionId: resolved.sessionId };
      },

      async endSession(request) {
        await sessions.end(request.token);
        return {};
      },

      async listMembers(request) {
        const rows = await members.list(requireStoreId(request));
        return { members: rows.map(memberMessage) };
      },

      async removeMember(request, context) {
        const storeId = requireStoreId(request);
        const memberId = requireUuid(request.memberId, "member_id");
        const removed = await members.remove(storeId, memberId, requirePermission(context, "store_admin"), { keepApiKeys: request.keepApiKeys });
        return { member: memberMessage(removed.member), apiKeys: removed.apiKeys };
      },

      async setMemberRole(request, context) {
        const storeId = requireStoreId(request);
        const memberId = requireUuid(request.memberId, "member_id");
        const role = requireRole(request.role);
        const member = await members.setRole(storeId, memberId, role, requirePermission(context, "store_admin"));
        return { member: memberMessage(member) };
      },

      async listInvitations(request) {
        const rows = await members.invitations(requireStoreId(request));
        return { invitations: rows.map(invitationMessage) };
      },

      async revokeInvitation(request, context) {
        const storeId = requireStoreId(request);
        const invitationId = requireUuid(request.invitationId, "invitation_id");
        const invitation = await members.revokeInvitation(storeId, invitationId, requirePermission(context, "store_admin"));
        return { invitation: invitationMessage(invitation) };
      },

      async checkLink(request) {
        const linkState = LINK_KINDS[request.kind as keyof typeof LINK_KINDS];
        if (!linkState) throw fieldError("kind", `must be one of ${Object.keys(LINK_KINDS).join(", ")}`);
        return linkState(request.token);
      },

      // No actor: asking for a reset is what someone who cannot sign in does.
      async requestPasswordReset(request) {
        await passwordResets.request(request.email, request.clientAddress);
        return {};
      },

      async resetPassword(request) {
        // Before the token, as for invitations: a too-short password is the caller's to fix.
        const password = requirePassword(request.password);
        const { member, session } = await passwordResets.reset(request.token, password);
        return { member: memberMessage(member), session: sessionMessage(session) };
      },

      async listAudit(request) {
        const rows = await audit.list(requireStoreId(request), auditQuery(request));
        return { entries: rows.map(auditEntryMessage) };
      },
    });
  };
}
