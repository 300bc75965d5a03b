// Links into the merchant dashboard (docs/dashboard.md#sign-in) that are made outside the gateway:
// the catalog service's mails (invitations, password resets), the CLI's invitations and
// `npm start`'s demo sign-in link.

export const DASHBOARD_PATH = "/dashboard";

/** The one-time invitation page for a token. */
export function inviteUrl(publicBaseUrl: string, token: string): string {
  return `${publicBaseUrl}${DASHBOARD_PATH}/invite/${encodeURIComponent(token)}`;
}

/** The one-time "choose a new password" page for a reset token. */
export function passwordResetUrl(publicBaseUrl: string, token: string): string {
  return `${publicBaseUrl}${DASHBOARD_PATH}/reset-password/${encodeURIComponent(token)}`;
}

/** A webhook endpoint's page in its store (the "endpoint disabled" mail links to it). */
export function endpointUrl(publicBaseUrl: string, storeId: string, endpointId: string): string {
  return `${publicBaseUrl}${DASHBOARD_PATH}/stores/${storeId}/webhooks/${endpointId}`;
}

/**
 * Where to go after signing in: `next` when it is a dashboard page of this origin (a
 * path under /dashboard/, no scheme, host or backslash, not the sign-in pages
 * themselves), else the dashboard's start. Nothing else is followed: an open redirect
 * would let another site send a freshly signed-in member anywhere.
 */
export function afterSignIn(next: string | undefined): string {
  if (!next || next.length > 2_000) return DASHBOARD_PATH;
  if (!next.startsWith(`${DASHBOARD_PATH}/`) || next.startsWith("//") || /[\\\s]/.test(next)) return DASHBOARD_PATH;
  let url: URL;
  try {
    url = new URL(next, "http://dashboard.invalid");
  } catch {
    return DASHBOARD_PATH;
  }
  if (url.host !== "dashboard.invalid" || !url.pathname.startsWith(`${DASHBOARD_PATH}/`)) return DASHBOARD_PATH;
  if (/^\/dashboard\/(login|logout|invite|reset-password|forgot-password)(\/|$)/.test(url.pathname)) return DASHBOARD_PATH;
  return url.pathname + url.search;
}

/** The sign-in page, remembering the page that asked for it. */
export function signInUrl(next?: string): string {
  return next ? `${DASHBOARD_PATH}/login?next=${encodeURIComponent(next)}` : `${DASHBOARD_PATH}/login`;
}
