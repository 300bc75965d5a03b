// Where a sign-in returns (docs/dashboard.md#sign-in): only to a dashboard page of this origin.
import test from "ava";
import { afterSignIn, signInUrl } from "../../common/dashboard-links.js";

test("a dashboard page asked for is where the sign-in returns, with its query", (t) => {
  t.is(afterSignIn("/dashboard/stores/0b6f/orders?status=paid&q=SO-ABC"), "/dashboard/stores/0b6f/orders?status=paid&q=SO-ABC");
  t.is(afterSignIn(undefined), "/dashboard");
  t.is(afterSignIn(""), "/dashboard");
});

test("anything that could leave the dashboard, or loop through sign-in, goes to the start", (t) => {
  for (const next of [
    "https://evil.example/dashboard/x",
    "//evil.example/dashboard/",
    "/\\evil.example",
    "/dashboard\\..\\x",
    "/dashboard/../admin",
    "/v1/orders",
    "javascript:alert(1)",
    "/dashboard/login?next=/dashboard/x",
    "/dashboard/invite/abc",
    "/dashboard/reset-password/abc",
    "/dashboard/logout",
    "/dashboard/stores/x\n/y",
    `/dashboard/${"a".repeat(3000)}`,
  ]) {
    t.is(afterSignIn(next), "/dashboard", next);
  }
});

test("the sign-in link carries the page, encoded", (t) => {
  t.is(signInUrl("/dashboard/stores/1/orders?q=a&b=c"), "/dashboard/login?next=%2Fdashboard%2Fstores%2F1%2Forders%3Fq%3Da%26b%3Dc");
  t.is(signInUrl(), "/dashboard/login");
});
