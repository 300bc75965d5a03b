// Links into the merchant dashboard (CONTRACT §10) that are made outside the gateway:
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
