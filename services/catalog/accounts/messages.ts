import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { InvitationSchema, MemberSchema, SessionSchema, type Invitation, type Member, type Session } from "../../../gen/catalog/v1/account_pb.js";
import type { InvitationRow } from "../db/invitations.js";
import type { MemberRow } from "../db/members.js";

// The accounts' rows → protobuf messages: the one place the two vocabularies meet.

/** A member; with their role when the row is about one store. */
export function memberMessage(row: MemberRow & { role?: string }): Member {
  return create(MemberSchema, {
    id: row.id,
    email: row.email,
    status: row.has_password ? "active" : "invited",
    createdAt: timestampFromDate(row.created_at),
    role: row.role ?? "",
    lastSignedInAt: row.last_signed_in_at ? timestampFromDate(row.last_signed_in_at) : undefined,
  });
}

export function invitationMessage(row: InvitationRow): Invitation {
  return create(InvitationSchema, {
    id: row.id,
    email: row.email,
    role: row.role,
    createdAt: timestampFromDate(row.created_at),
    expiresAt: timestampFromDate(row.expires_at),
  });
}

export function sessionMessage(session: { token: string; expiresAt: Date }): Session {
  return create(SessionSchema, { token: session.token, expiresAt: timestampFromDate(session.expiresAt) });
}

export { auditEntryMessage } from "../../../platform/audit-log.js";
