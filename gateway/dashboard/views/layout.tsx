// The dashboard's frame: header with the store and the member, the navigation of
// docs/dashboard.md#navigation, and the page. Works without script, from 360 px wide up.
import type { ComponentChildren } from "preact";
import { roleMay, type Permission, type Role } from "../../../common/roles.js";
import { Breakable } from "../../html/components.js";
import { Document } from "../../html/render.js";

export const DASHBOARD_CSS = `
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;background:#f4f6fa;color:#1b2330;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
a{color:#1556d6}
header.bar{background:#14213d;color:#fff;padding:10px 16px;display:flex;flex-wrap:wrap;align-items:center;gap:8px 16px}
header.bar .brand{font-weight:800;letter-spacing:.01em;margin-right:auto;word-break:break-word}
header.bar .who{font-size:.8125rem;color:#c9d3e6;word-break:break-all}
header.bar form{margin:0}
header.bar button{background:transparent;color:#fff;border:1px solid #5a6b8c;border-radius:8px;padding:4px 10px;font:inherit;font-size:.8125rem;cursor:pointer}
nav.main{background:#fff;border-bottom:1px solid #e3e7ee}
nav.main ul{list-style:none;margin:0 auto;padding:0 8px;max-width:1100px;display:flex;flex-wrap:wrap;gap:2px}
nav.main a{display:block;padding:10px 10px;text-decoration:none;color:#3b4657;font-weight:600;font-size:.875rem;border-bottom:3px solid transparent}
nav.main a[aria-current=page]{color:#1556d6;border-bottom-color:#1556d6}
main{max-width:1100px;margin:0 auto;padding:20px 16px 48px;overflow-wrap:anywhere}
h1{font-size:1.375rem;margin:0 0 16px;word-break:break-word}
h2{font-size:1.0625rem;margin:24px 0 10px}
.card{background:#fff;border:1px solid #e3e7ee;border-radius:12px;padding:16px;margin-bottom:16px}
.muted{color:#5b6678}
.small{font-size:.8125rem}
.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;overflow-wrap:anywhere}
td .mono,td.mono{word-break:normal;overflow-wrap:break-word}
.num{white-space:nowrap;font-variant-numeric:tabular-nums}
.nowrap{white-space:nowrap}
.breakable{overflow-wrap:normal;word-break:normal}
.chart-days{display:flex;justify-content:space-between;gap:8px;margin-top:2px}
.chart{position:relative;margin:0}
.chart-empty{position:absolute;left:0;right:0;top:30%;margin:0;text-align:center;color:#5b6678;font-weight:600}
.table-wrap{overflow-x:auto;-webkit-overflow-scrolling:touch;border:1px solid #e3e7ee;border-radius:12px;background:#fff}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:8px 12px;overflow-wrap:normal;border-bottom:1px solid #eef0f4;vertical-align:top;font-size:.875rem}
th{color:#5b6678;font-weight:600;background:#fafbfd}
tr:last-child td{border-bottom:0}
.badge{display:inline-block;white-space:nowrap;border-radius:999px;padding:2px 9px;font-size:.75rem;font-weight:700}
.badge-pending{background:#fff4d6;color:#8a5a00}
.badge-paid,.badge-succeeded,.badge-active,.badge-enabled,.badge-published{background:#dcf5e6;color:#0f6b35}
.badge-failed,.badge-refused,.badge-revoked,.badge-disabled,.badge-oversold{background:#fde2e1;color:#a32019}
.badge-expired,.badge-cancelled,.badge-invited,.badge-draft,.badge-archived{background:#eceef2;color:#485264}
.badge-refunded{background:#e1ecfd;color:#1d4f9c}
.badge-role{background:#e1ecfd;color:#1d4f9c}
.badge-test{background:#fff4d6;color:#8a5a00}
ul.people{list-style:none;margin:0 0 16px;padding:0;display:grid;gap:10px}
.person{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:8px 16px;margin:0}
.person .who-is{min-width:0;flex:1 1 260px;overflow-wrap:anywhere}
.person .who-is .small{margin-top:4px}
.person .actions{margin:0}
.person select{width:auto}
form.stack{display:grid;gap:12px;max-width:520px}
form.inline{display:flex;flex-wrap:wrap;gap:8px;align-items:end}
label{display:grid;gap:4px;font-weight:600;font-size:.875rem}
.field{display:grid;gap:4px}
form.stack .hint{margin:-8px 0 0}
.field-problem{margin:-8px 0 0;color:#a32019;font-size:.8125rem;font-weight:600}
[aria-invalid=true]{border-color:#a32019}
.quantity{display:grid;grid-template-columns:minmax(0,1fr) 90px;gap:8px;align-items:center;padding:4px 0}
input[type=text],input[type=email],input[type=password],input[type=url],input[type=search],input[type=number],input[type=datetime-local],select,textarea{font:inherit;font-weight:400;padding:9px 10px;border:1px solid #c4cbd6;border-radius:8px;width:100%;max-width:100%;background:#fff}
fieldset{border:1px solid #e3e7ee;border-radius:8px;padding:10px 12px;margin:0;min-width:0}
fieldset label{display:flex;gap:8px;align-items:center;font-weight:500}
legend{font-weight:600;font-size:.875rem;padding:0 4px}
button,.button{display:inline-block;font:inherit;font-weight:700;border-radius:8px;padding:9px 16px;border:1px solid #1556d6;background:#1556d6;color:#fff;cursor:pointer;text-decoration:none;text-align:center}
button.secondary,.button.secondary{background:#fff;color:#1556d6}
button.danger,.button.danger{background:#fff;color:#a32019;border-color:#e9a19c}
button:focus-visible,.button:focus-visible,a:focus-visible{outline:3px solid #8fb3f5;outline-offset:2px}
.actions{display:flex;flex-wrap:wrap;gap:8px;margin:12px 0}
.actions form{margin:0}
.flash{border-radius:10px;padding:12px 14px;margin-bottom:16px;background:#e8f8ee;border:1px solid #a6e3bd}
.error{border-radius:10px;padding:12px 14px;margin-bottom:16px;background:#fdeceb;border:1px solid #f5b5b1}
.warning{border-radius:10px;padding:12px 14px;margin:12px 0;background:#fff8e6;border:1px solid #f6d68b}
.secret{display:block;user-select:all;-webkit-user-select:all;background:#f3f5f9;border:1px dashed #b8c0cc;border-radius:8px;padding:8px 10px;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-weight:600;word-break:break-all}
.empty{text-align:center;padding:28px 16px;color:#5b6678}
.empty strong{display:block;color:#1b2330;font-size:1rem;margin-bottom:4px}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(150px,1fr));gap:12px;margin-bottom:12px}
.grid>.card{margin-bottom:0}
.stat{font-size:1.75rem;font-weight:800}
dl.details{display:grid;grid-template-columns:minmax(120px,auto) 1fr;gap:6px 16px;margin:0}
dl.details dt{color:#5b6678;font-size:.875rem}
dl.details dd{margin:0;word-break:break-word}
pre{white-space:pre-wrap;word-break:break-all;background:#f6f8fb;border:1px solid #e3e7ee;border-radius:8px;padding:10px;font-size:.8125rem;margin:0}
.side-by-side{display:grid;grid-template-columns:1fr 1fr;gap:12px}
.side-by-side>*{min-width:0}
.narrow{max-width:420px;margin:40px auto}
ul.changes{margin:4px 0 0;padding-left:18px;overflow-wrap:anywhere}
ul.changes .was{color:#5b6678}
.visually-hidden{position:absolute;width:1px;height:1px;margin:-1px;padding:0;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}
@media (max-width:640px){
.table-wrap{overflow:visible;border:0;border-radius:0;background:none}
table.list,table.list tbody,table.list tr,table.list td{display:block;width:100%}
table.list thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
table.list tr{background:#fff;border:1px solid #e3e7ee;border-radius:12px;padding:8px 12px;margin-bottom:10px}
table.list td{border:0;padding:3px 0;display:grid;grid-template-columns:minmax(0,34%) minmax(0,1fr);gap:10px}
table.list td::before{content:attr(data-label);color:#5b6678;font-weight:600;font-size:.8125rem;white-space:normal}
table.list td[data-label=""]{display:block}
table.list td[data-label=""]::before{content:none}
table.list tr.sum{display:flex;justify-content:space-between;gap:12px;background:none;border:0;border-radius:0;margin:0;padding:2px 12px}
table.list tr.sum td{width:auto}
}
@media (max-width:420px){th,td{padding:6px 7px;font-size:.8125rem}.stat{font-size:1.3rem}.grid h2{font-size:.9375rem;margin-top:0}}
@media (max-width:700px){nav.main a{padding:7px 8px;font-size:.8125rem}.side-by-side{grid-template-columns:1fr}dl.details{grid-template-columns:1fr;gap:2px}dl.details dd{margin-bottom:8px}main{padding:16px 10px 40px}}
`;

/**
 * The navigation, each section with the permission a role needs to use it
 * (docs/team.md#roles): the links shown and the pages a role may open (kit.tsx) both come from here.
 */
export const NAV = [
  ["overview", "Overview", "view"],
  ["orders", "Orders", "view"],
  // Every role sees the catalog; changing it needs "catalog" (the page's forms, `may`).
  ["products", "Products", "view"],
  ["payment-links", "Payment links", "view"],
  ["api-keys", "API keys", "developer_settings"],
  ["webhooks", "Webhooks", "view"],
  ["events", "Events", "view"],
  ["bank-mutations", "Bank mutations", "view"],
  ["team", "Team", "store_admin"],
  ["settings", "Settings", "store_admin"],
  ["audit-log", "Audit log", "view"],
] as const satisfies readonly (readonly [string, string, Permission])[];

export type Section = (typeof NAV)[number][0];

/** The permission a section of the store needs, or undefined for a path outside the navigation. */
export function sectionPermission(section: string): Permission | undefined {
  return NAV.find(([path]) => path === section)?.[2];
}

export interface ShellProps {
  title: string;
  /** The page's heading when it is more than its title's text (an unbreakable reference); the title otherwise. */
  heading?: ComponentChildren;
  member: { email: string; stores: { id: string; name: string; role: Role }[] };
  store: { id: string; name: string };
  /** The section the page belongs to (marked in the navigation); none for a refusal. */
  section?: Section;
  csrf: string;
  flash?: string;
  error?: string;
  children: ComponentChildren;
}

export const storePath = (storeId: string, rest = "overview") => `/dashboard/stores/${storeId}/${rest}`;

/** A signed-in page of one store. */
export function Shell(props: ShellProps) {
  const others = props.member.stores.filter((store) => store.id !== props.store.id);
  // Only what the member's role in this store may use (docs/team.md#roles).
  const role = props.member.stores.find((store) => store.id === props.store.id)?.role;
  const nav = NAV.filter(([, , permission]) => role !== undefined && roleMay(role, permission));
  return (
    <Document title={`${props.title} · ${props.store.name}`} css={DASHBOARD_CSS}>
      <header class="bar">
        <span class="brand">{props.store.name}</span>
        {others.length > 0 && (
          <details>
            <summary>Switch store</summary>
            <ul>
              {others.map((store) => (
                <li>
                  <a href={storePath(store.id)} style="color:#fff">
                    {store.name}
                  </a>
                </li>
              ))}
            </ul>
          </details>
        )}
        <Breakable class="who" text={props.member.email} />
        <form method="post" action="/dashboard/logout">
          <input type="hidden" name="csrf" value={props.csrf} />
          <button type="submit">Sign out</button>
        </form>
      </header>
      <nav class="main" aria-label="Store">
        <ul>
          {nav.map(([path, label]) => (
            <li>
              <a href={storePath(props.store.id, path)} aria-current={path === props.section ? "page" : undefined}>
                {label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main>
        <h1>{props.heading ?? props.title}</h1>
        {props.flash && (
          <p class="flash" role="status">
            {props.flash}
          </p>
        )}
        {props.error && (
          <p class="error" role="alert">
            {props.error}
          </p>
        )}
        {props.children}
      </main>
    </Document>
  );
}

/** A page outside any store (sign-in, invitation, errors). */
export function Plain(props: { title: string; children: ComponentChildren }) {
  return (
    <Document title={props.title} css={DASHBOARD_CSS}>
      <main class="narrow">
        <h1>{props.title}</h1>
        {props.children}
      </main>
    </Document>
  );
}

/** The hidden CSRF field every form that changes something carries. */
export function Csrf({ token }: { token: string }) {
  return <input type="hidden" name="csrf" value={token} />;
}

/** An empty list that says what to do next. */
export function Empty({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="empty card">
      <strong>{title}</strong>
      {children}
    </div>
  );
}
