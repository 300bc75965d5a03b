// Inline in every hosted page: their CSP allows styles only from the page itself.
export const HOSTED_CSS = `
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;background:#f3f5f9;color:#1b2330;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
.wrap{max-width:560px;margin:0 auto;padding:24px 16px 40px}
.card{background:#fff;border-radius:16px;box-shadow:0 1px 3px rgba(16,24,40,.08),0 8px 24px rgba(16,24,40,.06);overflow:hidden}
.card>section{padding:20px 24px;border-top:1px solid #eef0f4}
.card>section:first-child{border-top:0}
header.top{display:flex;flex-wrap:wrap;align-items:flex-start;justify-content:space-between;gap:8px 12px}
.store{margin:0;font-size:1.25rem;line-height:1.3;font-weight:700;overflow-wrap:break-word}
.muted{color:#5b6678;font-size:.875rem}
.small{font-size:.8125rem}
.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.badge{display:inline-block;white-space:nowrap;border-radius:999px;padding:3px 10px;font-size:.8125rem;font-weight:600}
.badge-pending{background:#fff4d6;color:#8a5a00}
.badge-paid{background:#dcf5e6;color:#0f6b35}
.badge-failed{background:#fde2e1;color:#a32019}
.badge-expired,.badge-cancelled{background:#eceef2;color:#485264}
.badge-refunded{background:#e1ecfd;color:#1d4f9c}
h2{margin:0 0 12px;font-size:1rem}
.amount-label{margin:0;color:#5b6678;font-size:.875rem}
.amount{margin:2px 0 4px;font-size:2rem;line-height:1.2;font-weight:800;letter-spacing:-.01em;word-break:break-word}
.amount .code{color:#b45309;text-decoration:underline;text-decoration-thickness:2px;text-underline-offset:4px}
.copy{display:inline-block;user-select:all;-webkit-user-select:all;background:#f3f5f9;border:1px dashed #b8c0cc;border-radius:8px;padding:2px 8px;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-weight:600;letter-spacing:.02em;word-break:break-all}
.note{background:#fff8e6;border:1px solid #f6d68b;border-radius:12px;padding:12px 14px;margin:14px 0 0;font-size:.9375rem}
.notice{border-radius:12px;padding:14px 16px;margin:0;font-size:.9375rem}
.notice strong{display:block;font-size:1.0625rem;margin-bottom:2px}
.notice-paid{background:#e8f8ee;border:1px solid #a6e3bd}
.notice-failed{background:#fdeceb;border:1px solid #f5b5b1}
.notice-expired,.notice-cancelled{background:#f1f2f5;border:1px solid #d5d9e0}
.notice-refunded{background:#eaf1fd;border:1px solid #b4cdf5}
.notice-pending{background:#fff8e6;border:1px solid #f6d68b}
dl.details{display:grid;grid-template-columns:minmax(110px,auto) 1fr;gap:8px 16px;margin:0}
dl.details dt{color:#5b6678;font-size:.875rem;padding-top:2px}
dl.details dd{margin:0;font-weight:600;word-break:break-word}
ul.items{list-style:none;margin:0;padding:0}
ul.items li{display:flex;justify-content:space-between;gap:12px;padding:10px 0;border-bottom:1px solid #eef0f4}
ul.items li:last-child{border-bottom:0}
.item-title{font-weight:600;word-break:break-word}
.num{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
table.sum{width:100%;border-collapse:collapse;margin-top:8px}
table.sum td{padding:4px 0}
table.sum tr.total td{border-top:2px solid #1b2330;padding-top:10px;font-weight:800;font-size:1.125rem}
.button{display:block;width:100%;text-align:center;border:0;border-radius:12px;padding:14px 18px;font:inherit;font-weight:700;font-size:1.0625rem;text-decoration:none;cursor:pointer;margin-top:16px}
.button-primary{background:#1556d6;color:#fff}
.button-primary:hover,.button-primary:focus{background:#0f45ad}
.button-danger{background:#fff;color:#a32019;border:2px solid #e9a19c}
.button-danger:hover,.button-danger:focus{background:#fdeceb}
.button:focus-visible{outline:3px solid #8fb3f5;outline-offset:2px}
.sandbox{background:#3b1f6b;color:#fff;text-align:center;font-weight:700;font-size:.8125rem;letter-spacing:.06em;text-transform:uppercase;padding:8px}
p.language{margin:0 0 10px;text-align:right;font-size:.875rem}
footer{margin-top:16px;text-align:center;color:#7a8597;font-size:.8125rem}
footer p{margin:4px 0}
a{color:#1556d6}
@media (max-width:420px){.wrap{padding:12px 10px 32px}.card>section{padding:16px}.amount{font-size:1.625rem}dl.details{grid-template-columns:1fr;gap:2px}dl.details dd{margin-bottom:8px}}
`;
