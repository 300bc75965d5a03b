// The accounts' mails (docs/team.md#mail): an invitation and a password reset, each carrying
// its one-time link. Handed to the mailer after the change commits; the mailer retries
// and never fails the action (platform/mail.ts).
import { inviteUrl, passwordResetUrl } from "../../../common/dashboard-links.js";
import type { Role } from "../../../common/roles.js";
import type { Mailer, OutgoingMail } from "../../../platform/mail.js";

export interface AccountMail {
  invitation(to: { email: string; storeName: string; role: Role; token: string; expiresAt: Date }): void;
  passwordReset(to: { email: string; token: string; expiresAt: Date }): void;
}

/** "24 November 2026, 13:05 UTC": a mail is read anywhere, so the zone is said. */
const when = (at: Date) =>
  `${at.toLocaleString("en-GB", { timeZone: "UTC", day: "numeric", month: "long", year: "numeric", hour: "2-digit", minute: "2-digit", hour12: false })} UTC`;

export function invitationMail(to: { email: string; storeName: string; role: Role; token: string; expiresAt: Date }, publicBaseUrl: string): OutgoingMail {
  return {
    kind: "invitation",
    to: to.email,
    subject: `You are invited to ${to.storeName}`,
    text: [
      `You were invited to the dashboard of ${to.storeName} as ${to.role}.`,
      "",
      `Choose your password here. The link works once, until ${when(to.expiresAt)}:`,
      inviteUrl(publicBaseUrl, to.token),
      "",
      // One text for every address: the mail says nothing of whether it already has an account.
      "If you already have an account, the password you choose replaces your old one and signs you out everywhere else.",
      "",
      "If you did not expect this invitation, ignore this mail.",
    ].join("\n"),
  };
}

export function passwordResetMail(to: { email: string; token: string; expiresAt: Date }, publicBaseUrl: string): OutgoingMail {
  return {
    kind: "password-reset",
    to: to.email,
    subject: "Reset your password",
    text: [
      `Someone asked to reset the password of ${to.email}.`,
      "",
      `Choose a new password here. The link works once, until ${when(to.expiresAt)}:`,
      passwordResetUrl(publicBaseUrl, to.token),
      "",
      "Setting it signs you out everywhere else. If you did not ask, ignore this mail: your password stays as it is.",
    ].join("\n"),
  };
}

export function createAccountMail(mailer: Pick<Mailer, "send">, publicBaseUrl: string): AccountMail {
  return {
    invitation: (to) => mailer.send(invitationMail(to, publicBaseUrl)),
    passwordReset: (to) => mailer.send(passwordResetMail(to, publicBaseUrl)),
  };
}
