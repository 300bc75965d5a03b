// The Team page (docs/team.md#team-page), owners only: members with their role and last sign-in,
// "Invite member" (mailed a one-time 72 h link), "Change role", "Remove member"
// (confirmed), and pending invitations that can be revoked. The catalog service checks
// the role, keeps a store's last owner and audits every change; this page only renders.
import type { RouterInstance as Router } from "@koa/router";
import { Code, ConnectError } from "@connectrpc/connect";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { Timestamp } from "@bufbuild/protobuf/wkt";
import { auditTarget, MEMBER_API_KEYS_FIELD } from "../../../common/audit.js";
import { isUuid } from "../../../common/ids.js";
import { isLastOwner, LAST_OWNER_TEXT, ROLES, type Role } from "../../../common/roles.js";
import type { Invitation, Member } from "../../../gen/catalog/v1/account_pb.js";
import { Breakable, Time } from "../../html/components.js";
import { field } from "../forms.js";
import { flashMessage, notFoundPage, problemText, ROLE_NAMES, seeOther, seeOtherWith, sendPage, shownOnce, type DashboardContext, type Kit } from "../kit.js";
import { Csrf, Empty, Shell, storePath } from "../views/layout.js";

const iso = (value: Timestamp | undefined) => (value ? timestampDate(value).toISOString() : "");

/** What each role may do, beside its name in the invitation form (the columns of docs/team.md#roles). */
const ROLE_HINTS: Record<Role, string> = {
  owner: "everything, including settings and the team",
  developer: "API keys and webhook endpoints",
  support: "mark paid, cancel, refund, bank mutations",
  viewer: "sees everything, changes nothing",
};

/** The invitation form's preselected role: the least that can do anything. */
const DEFAULT_ROLE: Role = "viewer";

/** The confirmations shown once by the Team page after a change. */
const DONE = {
  invited: "Invitation sent. Its link works once, for 72 hours; they join the team when they accept it.",
  role: "Role changed. It applies to the member's next page.",
  removed: "Member removed. Their sessions ended at once.",
  revoked: "Invitation revoked. Its link no longer works.",
  gone: "That invitation is no longer pending: it was revoked or used already.",
} as const;

/** The flash of a removal: whom, so the page can say what the catalog recorded of it. */
interface MemberRemoved {
  kind: "member_removed";
  email: string;
}

function RoleSelect(props: { name: string; value: Role; label: string }) {
  return (
    <select name={props.name} aria-label={props.label}>
      {ROLES.map((role) => (
        <option value={role} selected={role === props.value}>
          {ROLE_NAMES[role]}
        </option>
      ))}
    </select>
  );
}

function TeamPage(props: {
  ctx: DashboardContext;
  members: Member[];
  invitations: Invitation[];
  invite?: { email: string; role: Role };
  flash?: string;
  error?: string;
}) {
  const { member: me, store, csrf } = props.ctx.state.scope;
  const invite = props.invite ?? { email: "", role: DEFAULT_ROLE };
  return (
    <Shell title="Team" member={me} store={store} section="team" csrf={csrf} flash={props.flash} error={props.error}>
      <ul class="people" aria-label="Members">
        {props.members.map((member) => {
          const role = member.role as Role;
          const you = member.id === me.id;
          return (
            <li class="card person">
              <div class="who-is">
                <strong>
                  <Breakable text={member.email} />
                </strong>
                {you && <span class="muted small"> (you)</span>}
                <div class="small muted">
                  <span class="badge badge-role">{ROLE_NAMES[role] ?? member.role}</span>{" "}
                  {member.status === "invited" ? <span class="badge badge-invited">Invited</span> : <span class="badge badge-active">Active</span>} Last sign-in:{" "}
                  {member.lastSignedInAt ? <Time iso={iso(member.lastSignedInAt)} /> : "never"}
                </div>
              </div>
              <div class="actions">
                <form class="inline" method="post" action={storePath(store.id, `team/${member.id}/role`)}>
                  <Csrf token={csrf} />
                  <RoleSelect name="role" value={role} label={`Role of ${member.email}`} />
                  <button type="submit" class="secondary">
                    Change role
                  </button>
                </form>
                {/* The only owner cannot go: no button that would only lead to a refusal. */}
                {!isLastOwner(props.members, member.id) && (
                  <a class="button danger" href={storePath(store.id, `team/${member.id}/remove`)} aria-label={`Remove member ${member.email}`}>
                    Remove member
                  </a>
                )}
              </div>
            </li>
          );
        })}
      </ul>

      <h2 id="invitations">Pending invitations</h2>
      {props.invitations.length === 0 ? (
        <Empty title="No pending invitations" />
      ) : (
        <ul class="people" aria-labelledby="invitations">
          {props.invitations.map((invitation) => (
            <li class="card person">
              <div class="who-is">
                <strong>
                  <Breakable text={invitation.email} />
                </strong>
                <div class="small muted">
                  {/* The same for every address: whether it already has an account elsewhere is not this store's to know. */}
                  <span class="badge badge-role">{ROLE_NAMES[invitation.role as Role] ?? invitation.role}</span> <span class="badge badge-invited">Invited</span> Sent{" "}
                  <Time iso={iso(invitation.createdAt)} />, works until{" "}
                  <Time iso={iso(invitation.expiresAt)} />
                </div>
              </div>
              <form method="post" action={storePath(store.id, `team/invitations/${invitation.id}/revoke`)}>
                <Csrf token={csrf} />
                <button type="submit" class="danger" aria-label={`Revoke the invitation of ${invitation.email}`}>
                  Revoke
                </button>
              </form>
            </li>
          ))}
        </ul>
      )}

      <h2 id="invite">Invite member</h2>
      <form class="stack card" method="post" action={storePath(store.id, "team/invitations")} aria-labelledby="invite">
        <Csrf token={csrf} />
        <label>
          Email
          <input type="email" name="email" required maxLength={254} value={invite.email} autocomplete="off" />
        </label>
        {/* Labelled by id, not by wrapping: a wrapped select's name would include its option's text. */}
        <div class="field">
          <label for="invite-role">Role</label>
          <select id="invite-role" name="role">
            {ROLES.map((role) => (
              <option value={role} selected={role === invite.role}>
                {ROLE_NAMES[role]}
              </option>
            ))}
          </select>
        </div>
        <ul class="small muted" style="margin:0;padding-left:18px">
          {ROLES.map((role) => (
            <li>
              <strong>{ROLE_NAMES[role]}</strong>: {ROLE_HINTS[role]}
            </li>
          ))}
        </ul>
        <p class="muted small" style="margin:0">
          We mail a link that works once, for 72 hours: they join the team with this role when they accept it. Someone already in the team keeps their role and gets a new link.
        </p>
        <button type="submit">Send invitation</button>
      </form>
    </Shell>
  );
}

/** The only owner's removal page: why it cannot be done, and no button (a post is still refused by the catalog). */
function LastOwnerPage(props: { ctx: DashboardContext; member: Member }) {
  const { member: me, store, csrf } = props.ctx.state.scope;
  return (
    <Shell title="This member cannot be removed" member={me} store={store} section="team" csrf={csrf}>
      <div class="card" role="alert">
        <p style="margin-top:0">
          <strong>
            <Breakable text={props.member.email} />
          </strong>{" "}
          is the only owner of {store.name}: {LAST_OWNER_TEXT}.
        </p>
        <a class="button secondary" href={storePath(store.id, "team")}>
          Back to the team
        </a>
      </div>
    </Shell>
  );
}

function RemovePage(props: { ctx: DashboardContext; member: Member }) {
  const { member: me, store, csrf } = props.ctx.state.scope;
  const you = props.member.id === me.id;
  return (
    <Shell title="Remove this member?" member={me} store={store} section="team" csrf={csrf}>
      <div class="card">
        <p style="margin-top:0">
          <strong>
            <Breakable text={props.member.email} />
          </strong>{" "}
          will no longer be able to open {store.name}, and every session of theirs ends at once.
          {you && " That is you: you will be signed out."}
        </p>
        <form method="post" action={storePath(store.id, `team/${props.member.id}/remove`)}>
          <Csrf token={csrf} />
          <label style="display:flex;gap:8px;align-items:center">
            <input type="checkbox" name="keep_api_keys" value="1" aria-describedby="keep-keys-note" />
            Keep their API keys
          </label>
          <p id="keep-keys-note" class="muted small" style="margin:4px 0 0">
            The API keys they created stop working at once with them, unless you keep them for the systems that use them. Either way the audit log names
            the keys.
          </p>
          <div class="actions">
            <button type="submit" class="danger">
              Remove member
            </button>
            <a class="button secondary" href={storePath(store.id, "team")}>
              Keep them
            </a>
          </div>
        </form>
      </div>
    </Shell>
  );
}

/**
 * The notice after a removal, from what the catalog recorded of it (its audit entry):
 * the member, and the API keys revoked or kept with them. The plain notice when the entry is not found.
 */
async function removalNotice(ctx: DashboardContext, clients: Kit["clients"], email: string): Promise<string> {
  const { member: me, store } = ctx.state.scope;
  const { entries } = await clients.accounts.listAudit({ storeId: store.id, limit: 20, actor: me.email, action: "member.removed" });
  const entry = entries.find((candidate) => candidate.target === auditTarget("member", email));
  if (!entry) return DONE.removed;
  const keys = entry.changes.find((change) => change.field === MEMBER_API_KEYS_FIELD);
  const what = keys ? `API keys ${keys.after}: ${keys.before}.` : "They had no API keys.";
  return `Member removed: ${email}. Their sessions ended at once. ${what}`;
}

export function teamPages(router: Router, kit: Kit) {
  const { clients, handle, storeScope } = kit;
  const base = "/dashboard/stores/:storeId/team";
  /** Back to the Team page with the confirmation of `done`, once. */
  const backToTeam = (ctx: DashboardContext, done: keyof typeof DONE) => seeOtherWith(ctx, storePath(ctx.state.scope.store.id, "team"), { message: DONE[done] });

  const load = async (ctx: DashboardContext) => {
    const storeId = ctx.state.scope.store.id;
    const [{ members }, { invitations }] = await Promise.all([clients.accounts.listMembers({ storeId }), clients.accounts.listInvitations({ storeId })]);
    return { members, invitations };
  };

  /** The page again with the service's reason (a bad email, the last owner), nothing changed. */
  const refused = async (ctx: DashboardContext, error: unknown, invite?: { email: string; role: Role }) => {
    const problem = problemText(error);
    if (!problem) throw error;
    const status = error instanceof ConnectError && error.code === Code.FailedPrecondition ? 409 : 400;
    sendPage(ctx, <TeamPage ctx={ctx} {...await load(ctx)} error={problem} invite={invite} />, status);
  };

  /** The member of the URL, with whether they are the store's only owner. */
  const findMember = async (ctx: DashboardContext) => {
    const memberId = (ctx.params.memberId ?? "").toLowerCase();
    if (!isUuid(memberId)) return undefined;
    const { members } = await clients.accounts.listMembers({ storeId: ctx.state.scope.store.id });
    const member = members.find((candidate) => candidate.id === memberId);
    return member && { member, lastOwner: isLastOwner(members, member.id) };
  };

  router.get(base, storeScope, handle(teamPage));
  router.post(`${base}/invitations`, storeScope, handle(inviteMember));
  router.post(`${base}/invitations/:invitationId/revoke`, storeScope, handle(revokeInvitation));
  router.post(`${base}/:memberId/role`, storeScope, handle(changeRole));
  router.get(`${base}/:memberId/remove`, storeScope, handle(confirmRemoveMember));
  router.post(`${base}/:memberId/remove`, storeScope, handle(removeMember));

  async function teamPage(ctx: DashboardContext) {
    const removed = shownOnce<MemberRemoved>(ctx, "member_removed");
    const flash = removed ? await removalNotice(ctx, clients, removed.email) : flashMessage(ctx);
    sendPage(ctx, <TeamPage ctx={ctx} {...await load(ctx)} flash={flash} />);
  }

  async function inviteMember(ctx: DashboardContext) {
    const { form, store } = ctx.state.scope;
    const email = field(form, "email").trim();
    const role = field(form, "role");
    try {
      // The catalog stores the invitation, audits it and mails the link.
      await clients.accounts.inviteMember({ storeId: store.id, email, role });
      backToTeam(ctx, "invited");
    } catch (error) {
      await refused(ctx, error, { email, role: (ROLES as readonly string[]).includes(role) ? (role as Role) : DEFAULT_ROLE });
    }
  }

  async function revokeInvitation(ctx: DashboardContext) {
    const invitationId = (ctx.params.invitationId ?? "").toLowerCase();
    if (!isUuid(invitationId)) return notFoundPage(ctx);
    try {
      await clients.accounts.revokeInvitation({ storeId: ctx.state.scope.store.id, invitationId });
    } catch (error) {
      // A second click, or a tab left open: it was revoked or used meanwhile.
      if (!(error instanceof ConnectError && error.code === Code.NotFound)) throw error;
      return backToTeam(ctx, "gone");
    }
    backToTeam(ctx, "revoked");
  }

  async function changeRole(ctx: DashboardContext) {
    const memberId = (ctx.params.memberId ?? "").toLowerCase();
    if (!isUuid(memberId)) return notFoundPage(ctx);
    try {
      await clients.accounts.setMemberRole({ storeId: ctx.state.scope.store.id, memberId, role: field(ctx.state.scope.form, "role") });
      backToTeam(ctx, "role");
    } catch (error) {
      await refused(ctx, error);
    }
  }

  async function confirmRemoveMember(ctx: DashboardContext) {
    const found = await findMember(ctx);
    if (!found) return notFoundPage(ctx);
    // Said before asking: confirming would only be refused.
    if (found.lastOwner) return sendPage(ctx, <LastOwnerPage ctx={ctx} member={found.member} />, 409);
    sendPage(ctx, <RemovePage ctx={ctx} member={found.member} />);
  }

  async function removeMember(ctx: DashboardContext) {
    const memberId = (ctx.params.memberId ?? "").toLowerCase();
    if (!isUuid(memberId)) return notFoundPage(ctx);
    // Unticked, the catalog revokes the API keys the member made along with them.
    const keepApiKeys = field(ctx.state.scope.form, "keep_api_keys") !== "";
    let email: string;
    try {
      ({ email } = (await clients.accounts.removeMember({ storeId: ctx.state.scope.store.id, memberId, keepApiKeys })).member!);
    } catch (error) {
      return refused(ctx, error);
    }
    // Removing yourself ends your own session too.
    if (memberId === ctx.state.scope.member.id) return seeOther(ctx, "/dashboard/login");
    seeOtherWith(ctx, storePath(ctx.state.scope.store.id, "team"), { shown: { kind: "member_removed", email } satisfies MemberRemoved });
  }
}
