// Sign-in, invitation and message pages: outside any store (kit.tsx shows errors with
// MessagePage too).
import { Csrf, Plain } from "./layout.js";

export function SignInPage(props: { csrf: string; email?: string; error?: string; notice?: string; next?: string }) {
  return (
    <Plain title="Sign in to your store">
      {props.notice && (
        <p class="flash" role="status">
          {props.notice}
        </p>
      )}
      {props.error && (
        <p class="error" role="alert">
          {props.error}
        </p>
      )}
      <form class="stack card" method="post" action="/dashboard/login">
        <Csrf token={props.csrf} />
        {props.next && <input type="hidden" name="next" value={props.next} />}
        <label>
          Email
          <input type="email" name="email" autocomplete="username" required value={props.email ?? ""} />
        </label>
        <label>
          Password
          <input type="password" name="password" autocomplete="current-password" required />
        </label>
        <button type="submit">Sign in</button>
      </form>
      <p>
        <a href="/dashboard/forgot-password">Forgot password?</a>
      </p>
      <p class="muted small">No account yet? Ask an owner of the store for an invitation.</p>
    </Plain>
  );
}

/** Choosing a password through a one-time link: an invitation's or a reset's. */
export function PasswordPage(props: { title: string; intro: string; csrf: string; action: string; email: string; error?: string }) {
  return (
    <Plain title={props.title}>
      <p class="muted">
        {props.intro} {props.email && <strong>{props.email}</strong>}
      </p>
      {props.error && (
        <p class="error" role="alert">
          {props.error}
        </p>
      )}
      <form class="stack card" method="post" action={props.action}>
        <Csrf token={props.csrf} />
        <label>
          New password
          <input type="password" name="password" autocomplete="new-password" minLength={12} required />
        </label>
        <label>
          Confirm password
          <input type="password" name="confirm" autocomplete="new-password" minLength={12} required />
        </label>
        <button type="submit">Set password</button>
      </form>
    </Plain>
  );
}

export function ForgotPasswordPage(props: { csrf: string; email?: string }) {
  return (
    <Plain title="Reset your password">
      <p class="muted">Enter the email you sign in with. We mail a link that works once, for 1 hour.</p>
      <form class="stack card" method="post" action="/dashboard/forgot-password">
        <Csrf token={props.csrf} />
        <label>
          Email
          <input type="email" name="email" autocomplete="username" required maxLength={254} value={props.email ?? ""} />
        </label>
        <button type="submit">Send reset link</button>
      </form>
      <p>
        <a href="/dashboard/login">Back to sign in</a>
      </p>
    </Plain>
  );
}

/** What a one-time link that cannot be used any more says, by its state (CheckLink). */
const SPENT_LINK: Record<string, { title: string; message: string }> = {
  used: { title: "This link was already used", message: "Each link works once. If you chose your password with it, sign in." },
  expired: { title: "This link has expired", message: "Ask for a new one, or sign in if you already have a password." },
  unknown: { title: "This link is not valid", message: "It may have been revoked or replaced by a newer one. Sign in, or ask for a new link." },
};

export function SpentLinkPage(props: { state: string; kind: "invitation" | "password_reset" }) {
  const what = SPENT_LINK[props.state] ?? SPENT_LINK.unknown!;
  const again = props.kind === "invitation" ? "Ask an owner of the store for a new invitation." : undefined;
  return (
    <Plain title={what.title}>
      <p>{what.message}</p>
      {again && <p class="muted small">{again}</p>}
      <p>
        <a class="button" href="/dashboard/login">
          Sign in
        </a>
      </p>
      {props.kind === "password_reset" && (
        <p>
          <a href="/dashboard/forgot-password">Send a new reset link</a>
        </p>
      )}
    </Plain>
  );
}

export function MessagePage(props: { title: string; message: string; link?: { href: string; label: string } }) {
  return (
    <Plain title={props.title}>
      <p>{props.message}</p>
      {props.link && (
        <p>
          <a href={props.link.href}>{props.link.label}</a>
        </p>
      )}
    </Plain>
  );
}

export function NoStoresPage(props: { csrf: string; email: string }) {
  return (
    <Plain title="No store yet">
      <p>
        You are signed in as <strong>{props.email}</strong>, but you are not a member of any store. Ask the store's operator to invite you.
      </p>
      <form method="post" action="/dashboard/logout">
        <Csrf token={props.csrf} />
        <button type="submit">Sign out</button>
      </form>
    </Plain>
  );
}
