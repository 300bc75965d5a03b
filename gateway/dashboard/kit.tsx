// What every dashboard page handler shares: the signed-in member and their store for
// the request (acting as them, with their role in it), CSRF on every form post, and
// errors shown as pages. The services check the role and audit each change themselves;
// the dashboard shows a role only what it may use (one table: views/layout.tsx NAV, and
// `may` for the buttons of a page) and turns any PERMISSION_DENIED into the 403 page.
import { actingAs } from "../../platform/acting-as.js";
import { Code, ConnectError } from "@connectrpc/connect";
import type { Next } from "koa";
import type { VNode } from "preact";
import { signInUrl } from "../../common/dashboard-links.js";
import { isUuid } from "../../common/ids.js";
import { PERMISSION_NAMES, PERMISSION_TEXT, roleMay, type Permission, type Role } from "../../common/roles.js";
import { grantRefusal, SCOPES } from "../../common/scopes.js";
import type { Store } from "../../gen/catalog/v1/catalog_pb.js";
import type { Logger } from "../../platform/logger.js";
import type { ServiceClients } from "../clients.js";
import { loggablePath, type GatewayContext, type RouteContext } from "../context.js";
import { toApiError } from "../errors.js";
import { sendHtml } from "../html/render.js";
import { keepFlash, setFlash, takeFlash, type FlashPayload } from "./flash.js";
import { readForm, readMultipartForm, type Form, type UploadedFile } from "./forms.js";
import { csrfTokenFor, sameToken, type Member, type SessionCookies } from "./session-cookie.js";
import { Shell, sectionPermission, storePath } from "./views/layout.js";
import { MessagePage } from "./views/sign-in-pages.js";

export interface StoreScope {
  member: Member;
  store: Store;
  /** The member's role in this store (docs/team.md#roles). */
  role: Role;
  csrf: string;
  /** The posted form (POST only), its CSRF token already checked. */
  form: Form;
  /** The uploaded file of a multipart form, if any. */
  file?: UploadedFile;
  /** GET only: the one-time flash a change left for this page (flash.ts), already cleared from the browser. */
  flash?: FlashPayload;
  /** Whether cookies are Secure (__Host-): the flash cookie is named like the others. */
  secureCookies: boolean;
}

/** An upload (a bank statement) may be as large as the API's largest body, 1 MiB (docs/reconciliation.md#statements). */
const MAX_UPLOAD_BYTES = 1024 * 1024;

export type DashboardContext = RouteContext & { state: GatewayContext["state"] & { scope: StoreScope } };

export interface DashboardDeps {
  clients: ServiceClients;
  logger: Logger;
  publicBaseUrl: string;
}

/**
 * The data a page shows (docs/dashboard.md#test-data): `?mode=test` is the store's test
 * data, anything else its live data. Links and forms keep it with `withMode` (views/test-data.tsx).
 */
export function dashboardMode(ctx: Pick<GatewayContext, "query">): { testMode: boolean } {
  return { testMode: ctx.query.mode === "test" };
}

export function sendPage(ctx: GatewayContext, page: VNode, status = 200): void {
  sendHtml(ctx, status, page);
}

/** After a change, back to a page (303: the browser follows with GET, so a reload does not post again). */
export function seeOther(ctx: GatewayContext, location: string): void {
  ctx.status = 303;
  ctx.redirect(location);
}

/**
 * After a change, back to the page that shows its outcome (303), with a one-time flash
 * for that page: its next GET shows it and clears it, so a reload or Back does not.
 */
export function seeOtherWith(ctx: DashboardContext, location: string, flash: FlashPayload): void {
  const { member, store, secureCookies } = ctx.state.scope;
  setFlash(ctx, { secure: secureCookies, browserSecret: member.token, location, storeId: store.id, payload: flash });
  seeOther(ctx, location);
}

/** The confirmation a change left for this page, once. */
export function flashMessage(ctx: DashboardContext): string | undefined {
  return ctx.state.scope.flash?.message;
}

/** What a change left to show once on this page (a new key, a secret, results), when it is of `kind`. */
export function shownOnce<T extends object>(ctx: DashboardContext, kind: string): T | undefined {
  const shown = ctx.state.scope.flash?.shown;
  return shown?.kind === kind ? (shown as unknown as T) : undefined;
}

export function notFoundPage(ctx: GatewayContext, status = 404): void {
  sendPage(ctx, <MessagePage title="Page not found" message="There is nothing here, or it belongs to a store you are not a member of." link={{ href: "/dashboard", label: "Back to the dashboard" }} />, status);
}

/** Whether the signed-in member's role in this store has `permission` (docs/team.md#roles): what a page offers. */
export function may(ctx: DashboardContext, permission: Permission): boolean {
  return roleMay(ctx.state.scope.role, permission);
}

export const ROLE_NAMES: Record<Role, string> = { owner: "Owner", developer: "Developer", support: "Support", viewer: "Viewer" };

/**
 * 403: what the member's role may not do, inside the store's frame when the store is
 * known. `permission` undefined (a refusal whose reason the service did not name)
 * still says it is the role; `what` words a refusal that is no permission of the role
 * table (a scope the role may not put on a key).
 */
export function forbiddenPage(ctx: GatewayContext, permission: Permission | undefined, what = permission ? PERMISSION_TEXT[permission] : "do this"): void {
  const scope = (ctx.state as Partial<DashboardContext["state"]>).scope;
  if (!scope) {
    return sendPage(ctx, <MessagePage title="Not allowed" message={`Your role may not ${what}. Nothing was changed.`} link={{ href: "/dashboard", label: "Back to the dashboard" }} />, 403);
  }
  sendPage(
    ctx,
    <Shell title="Not allowed for your role" member={scope.member} store={scope.store} csrf={scope.csrf}>
      <div class="card" role="alert">
        <p style="margin-top:0">
          Your role in {scope.store.name} is <strong>{ROLE_NAMES[scope.role]}</strong>. The {scope.role} role may not {what}. Nothing was changed.
        </p>
        <p class="muted small">Ask an owner of the store to change your role if you need this.</p>
        <a class="button secondary" href={storePath(scope.store.id)}>
          Back to the overview
        </a>
      </div>
    </Shell>,
    403,
  );
}

/**
 * What a service's PERMISSION_DENIED says the role may not do, in PERMISSION_TEXT's
 * words or as a scope it may not grant (grantRefusal); undefined when it names neither.
 */
function deniedWhat(error: ConnectError): string | undefined {
  const permission = PERMISSION_NAMES.find((name) => error.rawMessage.includes(PERMISSION_TEXT[name]));
  if (permission) return PERMISSION_TEXT[permission];
  const scope = SCOPES.find((name) => error.rawMessage.includes(grantRefusal(name)));
  return scope && grantRefusal(scope);
}

/** A ConnectError's message for a person: the field path stays, the service's vocabulary goes. */
export function problemText(error: unknown): string | undefined {
  if (error instanceof ConnectError && (error.code === Code.InvalidArgument || error.code === Code.FailedPrecondition)) return error.rawMessage;
  return undefined;
}

export function createKit(deps: DashboardDeps, sessions: SessionCookies) {
  const { clients, logger } = deps;

  /** Runs a handler; whatever it throws becomes a page, never the API's JSON. */
  const handle =
    <C extends GatewayContext>(handler: (ctx: C, next: Next) => Promise<void>) =>
    async (ctx: C, next: Next) => {
      try {
        await handler(ctx, next);
      } catch (error) {
        // The page did not show: a flash it took stays for the next try.
        keepFlash(ctx, sessions.secure);
        // A role refused by a service (a forged form, a tab left open across a role
        // change): one 403 page for every dashboard page; the service changed nothing.
        if (error instanceof ConnectError && error.code === Code.PermissionDenied) {
          logger.info({ requestId: ctx.state.requestId, path: loggablePath(ctx.path), reason: error.rawMessage }, "dashboard action refused for the member's role");
          return forbiddenPage(ctx, undefined, deniedWhat(error));
        }
        const apiError = toApiError(error);
        if (apiError.status === 404) return notFoundPage(ctx);
        if (apiError.status === 503) {
          ctx.set("Retry-After", "2");
          return sendPage(ctx, <MessagePage title="Temporarily unavailable" message="This page could not be loaded just now. Please try again in a moment." />, 503);
        }
        if (apiError.status >= 500) logger.error({ requestId: ctx.state.requestId, path: loggablePath(ctx.path), err: error }, "dashboard page failed");
        const message = apiError.status >= 500 ? "Something went wrong. Please try again later." : apiError.message;
        sendPage(ctx, <MessagePage title="This did not work" message={message} link={{ href: "/dashboard", label: "Back to the dashboard" }} />, apiError.status);
      }
    };

  /**
   * Middleware of every /dashboard/stores/:storeId/… route: a signed-in member of that
   * store (else sign-in, or 404 for a store that is not theirs), and on POST a valid
   * CSRF token (else 403, and nothing changes).
   */
  const storeScope = handle(async (ctx: DashboardContext, next: Next) => {
    const member = await sessions.resolve(ctx);
    if (!member) {
      if (ctx.method === "GET") return seeOther(ctx, signInUrl(ctx.url));
      return sendPage(ctx, <MessagePage title="Signed out" message="Your session has ended. Sign in again, then repeat what you were doing." link={{ href: "/dashboard/login", label: "Sign in" }} />, 403);
    }
    const storeId = (ctx.params.storeId ?? "").toLowerCase();
    const membership = member.stores.find((store) => store.id === storeId);
    if (!isUuid(storeId) || !membership) return notFoundPage(ctx);
    const csrf = csrfTokenFor(member.token);
    let form: Form = {};
    let file: UploadedFile | undefined;
    if (ctx.method === "POST") {
      if (ctx.is("multipart/form-data")) ({ form, file } = await readMultipartForm(ctx, MAX_UPLOAD_BYTES));
      else form = await readForm(ctx);
      if (!sameToken(form.csrf?.[0], csrf)) {
        logger.warn({ requestId: ctx.state.requestId, memberId: member.id, storeId, path: loggablePath(ctx.path) }, "dashboard form refused: missing or wrong CSRF token");
        return sendPage(ctx, <MessagePage title="This form has expired" message="Nothing was changed. Reload the page and try again." />, 403);
      }
    }
    const { store } = await clients.store.getStore({ id: storeId });
    // Taken by the page it was left for, on its next GET only.
    const flash = ctx.method === "GET" ? takeFlash(ctx, { secure: sessions.secure, browserSecret: member.token, storeId }) : undefined;
    ctx.state.scope = { member, store: store!, role: membership.role, csrf, form, file, flash, secureCookies: sessions.secure };
    // A section the role may not use (API keys, Settings) is 403 saying so, on GET and
    // POST alike, before any service is asked (the services refuse it too).
    const needed = sectionPermission((ctx.path.split("/")[4] ?? "").toLowerCase());
    if (needed && !roleMay(membership.role, needed)) return forbiddenPage(ctx, needed);
    // Every RPC of this page is the member's, with the role they hold in this store: the
    // services decide what that role may do (docs/team.md#roles).
    await actingAs({ kind: "member", memberId: member.id, role: membership.role, email: member.email }, next);
  });

  return { clients, logger, handle, storeScope, may };
}

export type Kit = ReturnType<typeof createKit>;
