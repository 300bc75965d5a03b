// The "Test data" switch and banner of the Orders, Webhooks and Events pages
// (docs/dashboard.md#test-data): `?mode=test` (kit.tsx dashboardMode) shows the store's
// test orders, endpoints and events instead of the live ones. One component, so the
// three pages say it alike; links and forms of a page in test mode keep `mode=test`.
import type { ParsedUrlQuery } from "node:querystring";

/** Query parameters that point into one mode's data (paging cursors): dropped when the mode switches. */
const MODE_BOUND = new Set(["mode", "before", "before_id", "after"]);

/** `path` with the mode's parameter: `?mode=test` in test mode, nothing in live mode; `params` kept as given. */
export function withMode(path: string, testMode: boolean, params: Record<string, string> = {}): string {
  const query = new URLSearchParams(Object.entries(params).filter(([, value]) => value !== ""));
  if (testMode) query.set("mode", "test");
  const text = query.toString();
  return text ? `${path}${path.includes("?") ? "&" : "?"}${text}` : path;
}

/** The page's address in the other mode: its filters kept, its paging dropped. */
export function switchedHref(path: string, query: ParsedUrlQuery, testMode: boolean): string {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(query)) if (!MODE_BOUND.has(name) && typeof value === "string") kept[name] = value;
  return withMode(path, !testMode, kept);
}

/** The hidden field that keeps a form (a filter, an endpoint to add) in test mode. */
export function ModeField({ testMode }: { testMode: boolean }) {
  return testMode ? <input type="hidden" name="mode" value="test" /> : null;
}

/**
 * The switch, a link that reads as a toggle ("Test data" with on or off), and in test
 * mode the banner that says nothing here moves money.
 */
export function TestData(props: { path: string; query: ParsedUrlQuery; testMode: boolean }) {
  const { testMode } = props;
  return (
    <>
      <p class="small" style="margin:0 0 12px;display:flex;justify-content:flex-end">
        <a
          href={switchedHref(props.path, props.query, testMode)}
          role="switch"
          aria-checked={testMode ? "true" : "false"}
          style="display:inline-flex;align-items:center;gap:8px;font-weight:600;text-decoration:none"
        >
          Test data
          <span class={`badge ${testMode ? "badge-pending" : "badge-expired"}`}>{testMode ? "on" : "off"}</span>
        </a>
      </p>
      {testMode && (
        <p class="warning" role="status" style="margin-top:0">
          <strong>Test data</strong> — you are looking at test data (orders, events, transfers); nothing here moves money.
        </p>
      )}
    </>
  );
}
