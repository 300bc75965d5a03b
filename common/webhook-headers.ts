// Custom headers of a webhook endpoint (docs/webhooks.md#custom-headers): up to 10, each a token's name and a
// value of visible ASCII, sent with every request. The names the signature, the body or
// the connection depend on are the service's own and cannot be set. One rule for the
// webhook service (which enforces it), the dashboard and the CLI (which show its words).

export const MAX_CUSTOM_HEADERS = 10;
export const MAX_HEADER_NAME_LENGTH = 100;
export const MAX_HEADER_VALUE_LENGTH = 1000;

/** RFC 9110's token: what a field name may be. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Visible ASCII, with spaces inside (a "Bearer …" token) but not at either end. */
const VISIBLE_ASCII = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

/** Never settable: the signature's, the body's and the connection's own (hop-by-hop). */
const RESERVED = new Set([
  "content-type",
  "content-length",
  "host",
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

export interface CustomHeader {
  name: string;
  value: string;
}

/** What is wrong with a header name (lower-cased by the caller or not), or undefined. */
export function headerNameProblem(name: string): string | undefined {
  if (name.length === 0) return "is required";
  if (name.length > MAX_HEADER_NAME_LENGTH) return `must be at most ${MAX_HEADER_NAME_LENGTH} characters`;
  if (!TOKEN.test(name)) return "must be letters, digits and !#$%&'*+-.^_`|~ only";
  const lower = name.toLowerCase();
  if (lower.startsWith("webhook-")) return "must not start with webhook-: those headers carry the signature";
  if (RESERVED.has(lower)) return `must not be ${lower}: the service sets it`;
  return undefined;
}

/** What is wrong with a header value, or undefined. */
export function headerValueProblem(value: string): string | undefined {
  if (value.length === 0) return "is required";
  if (value.length > MAX_HEADER_VALUE_LENGTH) return `must be at most ${MAX_HEADER_VALUE_LENGTH} characters`;
  if (!VISIBLE_ASCII.test(value)) return "must be visible ASCII characters (spaces only between them)";
  return undefined;
}

/**
 * The endpoint's headers with `added` set: a header of the same name (any case) is
 * replaced, keeping its place; a new one goes last, up to MAX_CUSTOM_HEADERS.
 * Throws a message naming the field when something is wrong.
 */
export function withHeader(headers: CustomHeader[], added: CustomHeader): CustomHeader[] {
  const nameProblem = headerNameProblem(added.name);
  if (nameProblem) throw new HeaderError("header_name", nameProblem);
  const valueProblem = headerValueProblem(added.value);
  if (valueProblem) throw new HeaderError("header_value", valueProblem);
  const lower = added.name.toLowerCase();
  const at = headers.findIndex((header) => header.name.toLowerCase() === lower);
  if (at >= 0) return headers.map((header, i) => (i === at ? added : header));
  if (headers.length >= MAX_CUSTOM_HEADERS) throw new HeaderError("header_name", `an endpoint has at most ${MAX_CUSTOM_HEADERS} custom headers`);
  return [...headers, added];
}

export class HeaderError extends Error {
  constructor(
    readonly field: "header_name" | "header_value",
    readonly problem: string,
  ) {
    super(`${field} ${problem}`);
  }
}

/** How a custom header's value is shown wherever it is not revealed: the endpoint's page, each attempt's headers. */
export const MASKED_HEADER_VALUE = "••••••••";
