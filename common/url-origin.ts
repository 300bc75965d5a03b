// What a URL shows of itself without its path and query: scheme://host[:port]. A
// webhook receiver's path or query often holds its token (https://hooks.example/T0K3N/…),
// so people who may not manage webhooks are shown this much of an endpoint's URL.

/** The URL's origin ("https://hooks.example:8443"); empty when the text is not a URL with one. */
export function urlOrigin(url: string): string {
  try {
    const { origin } = new URL(url);
    // URL gives "null" for an origin it cannot state (opaque schemes such as mailto:).
    return origin === "null" ? "" : origin;
  } catch {
    return "";
  }
}
