// Custom webhook headers (docs/webhooks.md#custom-headers): what a name and a value may be, and the limit.
import test from "ava";
import { headerNameProblem, headerValueProblem, MAX_CUSTOM_HEADERS, withHeader, HeaderError } from "../../common/webhook-headers.js";

test("names: a token, not the signature's, the body's or the connection's", (t) => {
  for (const name of ["Authorization", "X-Api-Key", "x-erp-token", "X_Weird~Name!"]) t.is(headerNameProblem(name), undefined, name);
  const refused: [string, RegExp][] = [
    ["", /required/],
    ["X Token", /letters, digits/],
    ["X:Token", /letters, digits/],
    ["Tökén", /letters, digits/],
    ["webhook-signature", /webhook-/],
    ["Webhook-Id", /webhook-/],
    ["Content-Type", /content-type/],
    ["content-length", /content-length/],
    ["HOST", /host/],
    ["Connection", /connection/],
    ["Transfer-Encoding", /transfer-encoding/],
    ["Upgrade", /upgrade/],
    ["TE", /te/],
    ["x".repeat(101), /at most 100/],
  ];
  for (const [name, problem] of refused) t.regex(headerNameProblem(name) ?? "", problem, name);
});

test("values: visible ASCII, spaces only between characters", (t) => {
  for (const value of ["Bearer abc.DEF-123", "k=v; x=y", "~"]) t.is(headerValueProblem(value), undefined, value);
  for (const value of ["", " lead", "trail ", "tab\there", "line\nbreak", "ümlaut", "nul\u0000", "x".repeat(1001)]) {
    t.truthy(headerValueProblem(value), JSON.stringify(value));
  }
});

test("setting a header: the same name in any case replaces it in place; at most 10; errors name the field", (t) => {
  let headers = withHeader([], { name: "Authorization", value: "Bearer one" });
  headers = withHeader(headers, { name: "X-Tenant", value: "toko-1" });
  headers = withHeader(headers, { name: "authorization", value: "Bearer two" });
  t.deepEqual(headers, [
    { name: "authorization", value: "Bearer two" },
    { name: "X-Tenant", value: "toko-1" },
  ]);
  const full = Array.from({ length: MAX_CUSTOM_HEADERS }, (_, i) => ({ name: `X-H${i}`, value: "v" }));
  const error = t.throws(() => withHeader(full, { name: "X-One-Too-Many", value: "v" }), { instanceOf: HeaderError });
  t.is(error?.field, "header_name");
  t.regex(error.message, /^header_name an endpoint has at most 10/);
  t.is(t.throws(() => withHeader([], { name: "X-Ok", value: " bad" }), { instanceOf: HeaderError })?.field, "header_value");
  t.deepEqual(withHeader(full, { name: "x-h3", value: "new" })[3], { name: "x-h3", value: "new" }, "replacing works at the limit");
});
