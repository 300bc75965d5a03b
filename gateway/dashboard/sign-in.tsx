// Sign-in, invitations, "Forgot password?" and sign-out (docs/dashboard.md#sign-in, docs/team.md#forgot-password). A failure
// never says whether the email exists; failures are limited per client address here and
// per email by the catalog service's lockout; reset requests per client address here,
// and by the catalog per email and per address.
import type { RouterInstance as Router } from "@koa/router";
import { Code, ConnectError } from "@connectrpc/connect";
import type { GatewayContext, RouteContext } from "../context.js";
import { addressBucket, perAddress, perAddressFailures } from "../per-address.js";
import type { RefundableRateLimiter } from "../rate-limit.js";
import { setFlash, takeFlash } from "./flash.js";
import { field, readForm } from "./forms.js";
import { afterSignIn } from "../../common/dashboard-links.js";
import { seeOther, sendPage, type Kit } from "./kit.js";
import { csrfTokenFor, readCookie, sameToken, type SessionCookies } from "./session-cookie.js";
import { ForgotPasswordPage, MessagePage, NoStoresPage, PasswordPage, SignInPage, SpentLinkPage } from "./views/sign-in-pages.js";
import { storePath } from "./views/layout.js";

const INVALID = "Invalid email or password";

/**
 * Sign-in and accepting an invitation hash a password (scrypt, ~0.3 s of a core; twice
 * when a sign-in upgrades an older hash): the catalog's usual 1.2 s deadline is too
 * short on a busy machine, and an acceptance cut off by it would spend the one-time
 * link without signing anyone in. The other calls of these pages (what a link is, a
 * reset request) get the same: a person waits on each, and a catalog busy hashing
 * passwords must not turn an invitation's page into "temporarily unavailable".
 */
const PASSWORD_CALL_TIMEOUT_MS = 15_000;

export interface SignInLimits {
  limiter: RefundableRateLimiter;
  /** Failed sign-ins, and separately reset requests, per client address and minute. */
  perMinute: number;
}

const isUnauthenticated = (error: unknown) => error instanceof ConnectError && error.code === Code.Unauthenticated;

export function signInRoutes(router: Router, kit: Kit, sessions: SessionCookies, limits: SignInLimits) {
  const { clients, handle, logger } = kit;
  const signInFailures = perAddressFailures(limits.limiter, "dashboard-sign-in", limits.perMinute);
  const resetRequests = perAddress(limits.limiter, "password-reset", limits.perMinute);
  const TRY_LATER = "Too many attempts. Wait a minute, then try again.";

  /** The pre-sign-in form token must match its cookie: another site cannot sign a browser in to its own account. */
  function preSessionCsrfOk(ctx: GatewayContext, given: string): boolean {
    const cookie = readCookie(ctx, sessions.names.csrf);
    return cookie !== undefined && sameToken(given, cookie);
  }

  /** A browser signing in again leaves no live session behind on the server. */
  async function endPreviousSession(ctx: GatewayContext) {
    const previous = readCookie(ctx, sessions.names.session);
    if (previous) await clients.accounts.endSession({ token: previous }).catch((error: unknown) => logger.warn({ requestId: ctx.state.requestId, err: error }, "previous dashboard session not ended"));
  }

  /**
   * The one-time flash of a page outside any store (flash.ts), keyed by the browser's
   * pre-sign-in CSRF cookie: there is no session to key it by.
   */
  const flashTo = (ctx: GatewayContext, location: string, message: string) => {
    setFlash(ctx, { secure: sessions.secure, browserSecret: sessions.preSessionCsrf(ctx), location, storeId: "", payload: { message } });
    seeOther(ctx, location);
  };
  const flashHere = (ctx: GatewayContext) =>
    takeFlash(ctx, { secure: sessions.secure, browserSecret: readCookie(ctx, sessions.names.csrf), storeId: "" })?.message;

  const expiredForm = (ctx: GatewayContext) =>
    sendPage(ctx, <MessagePage title="This form has expired" message="Nothing was changed. Go back, reload the page and try again." />, 403);

  /**
   * The two one-time links that end in choosing a password: an invitation (72 h) and a
   * password reset (1 h). Opening one asks the catalog what it is, so a used or expired
   * link says so and points to "Sign in" before anyone types a password.
   */
  const LINKS = {
    invitation: {
      path: "/dashboard/invite",
      title: "Choose your password",
      intro: "You were invited to a store. Choose a password of at least 12 characters for",
      use: (token: string, password: string) => clients.accounts.acceptInvitation({ token, password }, { timeoutMs: PASSWORD_CALL_TIMEOUT_MS }),
    },
    password_reset: {
      path: "/dashboard/reset-password",
      title: "Choose a new password",
      intro: "Setting it signs you out everywhere else. Choose a password of at least 12 characters for",
      use: (token: string, password: string) => clients.accounts.resetPassword({ token, password }, { timeoutMs: PASSWORD_CALL_TIMEOUT_MS }),
    },
  } as const;

  const { openLink: openInvitation, choosePassword: acceptInvitation } = oneTimeLinkPages("invitation");
  const { openLink: openPasswordReset, choosePassword: resetPassword } = oneTimeLinkPages("password_reset");

  router.get("/dashboard", handle(openDashboard));
  router.get("/dashboard/login", handle(signInPage));
  router.post("/dashboard/login", handle(signIn));
  router.get(`${LINKS.invitation.path}/:token`, handle(openInvitation));
  router.post(`${LINKS.invitation.path}/:token`, handle(acceptInvitation));
  router.get(`${LINKS.password_reset.path}/:token`, handle(openPasswordReset));
  router.post(`${LINKS.password_reset.path}/:token`, handle(resetPassword));
  router.get("/dashboard/forgot-password", handle(forgotPasswordPage));
  router.post("/dashboard/forgot-password", handle(requestPasswordReset));
  router.post("/dashboard/logout", handle(signOut));

  async function openDashboard(ctx: GatewayContext) {
    const member = await sessions.resolve(ctx);
    if (!member) return seeOther(ctx, "/dashboard/login");
    const first = member.stores[0];
    if (!first) return sendPage(ctx, <NoStoresPage csrf={csrfTokenFor(member.token)} email={member.email} />);
    seeOther(ctx, storePath(first.id));
  }

  async function signInPage(ctx: GatewayContext) {
    const notice = flashHere(ctx);
    const next = typeof ctx.query.next === "string" ? ctx.query.next : undefined;
    sendPage(ctx, <SignInPage csrf={sessions.preSessionCsrf(ctx)} notice={notice} next={next && afterSignIn(next) !== "/dashboard" ? next : undefined} />);
  }

  async function signIn(ctx: GatewayContext) {
    const form = await readForm(ctx);
    if (!preSessionCsrfOk(ctx, field(form, "csrf"))) return expiredForm(ctx);
    const email = field(form, "email").trim();
    // Taken before the password is hashed, given back when it was right: however many
    // tries arrive at once, no more than the budget are checked.
    const attempt = await signInFailures.begin(ctx.ip);
    if (!attempt.allowed) {
      ctx.set("Retry-After", String(attempt.retryAfterSeconds));
      return sendPage(ctx, <SignInPage csrf={sessions.preSessionCsrf(ctx)} email={email} error={TRY_LATER} next={field(form, "next") || undefined} />, 429);
    }
    try {
      const { session } = await clients.accounts.signIn({ email, password: field(form, "password") }, { timeoutMs: PASSWORD_CALL_TIMEOUT_MS });
      await endPreviousSession(ctx);
      sessions.start(ctx, session!.token);
      // Back to the page that asked for a sign-in, when it is one of ours.
      seeOther(ctx, afterSignIn(field(form, "next")));
    } catch (error) {
      if (!isUnauthenticated(error) && !(error instanceof ConnectError && error.code === Code.InvalidArgument)) throw error;
      attempt.failed();
      logger.info({ requestId: ctx.state.requestId }, "dashboard sign-in refused");
      sendPage(ctx, <SignInPage csrf={sessions.preSessionCsrf(ctx)} email={email} error={INVALID} next={field(form, "next") || undefined} />, 401);
    } finally {
      await attempt.end();
    }
  }

  /** The pages of one kind of link: opening it, and choosing the password it asks for. */
  function oneTimeLinkPages(kind: keyof typeof LINKS) {
    const link = LINKS[kind];
    const action = (token: string) => `${link.path}/${encodeURIComponent(token)}`;
    const passwordPage = (ctx: GatewayContext, token: string, email: string, error?: string, status = 200) =>
      sendPage(ctx, <PasswordPage title={link.title} intro={link.intro} csrf={sessions.preSessionCsrf(ctx)} action={action(token)} email={email} error={error} />, status);
    // 410: the link existed and is spent; the page still says what to do next.
    const spentPage = (ctx: GatewayContext, state: string) => sendPage(ctx, <SpentLinkPage state={state} kind={kind} />, state === "unknown" ? 404 : 410);
    async function openLink(ctx: RouteContext) {
      const token = ctx.params.token!;
      const { state, email } = await clients.accounts.checkLink({ kind, token }, { timeoutMs: PASSWORD_CALL_TIMEOUT_MS });
      if (state !== "pending") return spentPage(ctx, state);
      passwordPage(ctx, token, email);
    }

    async function choosePassword(ctx: RouteContext) {
      const token = ctx.params.token!;
      const form = await readForm(ctx);
      if (!preSessionCsrfOk(ctx, field(form, "csrf"))) return expiredForm(ctx);
      const again = async (error: string) => passwordPage(ctx, token, (await clients.accounts.checkLink({ kind, token }, { timeoutMs: PASSWORD_CALL_TIMEOUT_MS })).email, error, 400);
      const password = field(form, "password");
      if (password !== field(form, "confirm")) return again("The two passwords are not the same.");
      if ([...password].length < 12) return again("Choose a password of at least 12 characters.");
      try {
        const { session } = await link.use(token, password);
        await endPreviousSession(ctx);
        sessions.start(ctx, session!.token);
        seeOther(ctx, "/dashboard");
      } catch (error) {
        if (error instanceof ConnectError && error.code === Code.InvalidArgument) return again(error.rawMessage.replace(/^password: /, ""));
        if (!isUnauthenticated(error)) throw error;
        spentPage(ctx, (await clients.accounts.checkLink({ kind, token }, { timeoutMs: PASSWORD_CALL_TIMEOUT_MS })).state);
      }
    }

    return { openLink, choosePassword };
  }

  async function forgotPasswordPage(ctx: GatewayContext) {
    // Once after a request (a reload shows the form again, and sends nothing).
    const sent = flashHere(ctx);
    if (sent) return sendPage(ctx, <MessagePage title="Check your mail" message={sent} link={{ href: "/dashboard/login", label: "Back to sign in" }} />);
    sendPage(ctx, <ForgotPasswordPage csrf={sessions.preSessionCsrf(ctx)} />);
  }

  async function requestPasswordReset(ctx: GatewayContext) {
    const form = await readForm(ctx);
    if (!preSessionCsrfOk(ctx, field(form, "csrf"))) return expiredForm(ctx);
    const email = field(form, "email").trim();
    // Every request costs a token, taken before the catalog is asked; a refusal says
    // nothing about the email.
    const taken = await resetRequests.take(ctx.ip);
    if (!taken.allowed) {
      ctx.set("Retry-After", String(taken.retryAfterSeconds));
      return sendPage(ctx, <MessagePage title="Too many attempts" message={TRY_LATER} link={{ href: "/dashboard/forgot-password", label: "Back" }} />, 429);
    }
    // The catalog decides whether a link goes out (a member, within its own limits per
    // email and per address, the address counted as the limits here count it); the
    // answer here is the same either way.
    await clients.accounts.requestPasswordReset({ email, clientAddress: addressBucket(ctx.ip) }, { timeoutMs: PASSWORD_CALL_TIMEOUT_MS });
    // No address is longer than 254 characters; a longer one is not repeated (nor carried in the flash's cookie).
    flashTo(ctx, "/dashboard/forgot-password", `If an account uses ${email && email.length <= 254 ? email : "that email"}, a link to choose a new password is on its way. It works once, for 1 hour.`);
  }

  async function signOut(ctx: GatewayContext) {
    const member = await sessions.resolve(ctx);
    if (member) {
      const form = await readForm(ctx);
      if (!sameToken(field(form, "csrf"), csrfTokenFor(member.token))) return expiredForm(ctx);
      await clients.accounts.endSession({ token: member.token });
    }
    sessions.clear(ctx);
    flashTo(ctx, "/dashboard/login", "You are signed out.");
  }
}
