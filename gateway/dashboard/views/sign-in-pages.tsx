// Sign-in, invitation and message pages: outside any store (kit.tsx shows errors with
// MessagePage too).
import { Csrf, Plain } from "./layout.js";

export function SignInPage(props: { csrf: string; email?: string; error?: string; notice?: string }) {
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
      <p class="muted small">No account yet? Ask the store's operator for an invitation link.</p>
    </Plain>
  );
}

export function InvitePage(props: { csrf: string; action: string; error?: string }) {
  return (
    <Plain title="Choose your password">
      <p class="muted">You were invited to manage a store. Choose a password of at least 12 characters to finish.</p>
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
