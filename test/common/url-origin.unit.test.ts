// The origin of a URL, what roles without developer settings see of an endpoint's URL:
// never a path, query, fragment or user info, whatever the spelling. Pure.
import test from "ava";
import { urlOrigin } from "../../common/url-origin.js";

const cases: [string, string][] = [
  ["https://hooks.example/T0K3N/abc?key=s3cr3t", "https://hooks.example"],
  ["https://hooks.example:8443/T0K3N#frag", "https://hooks.example:8443"],
  ["https://hooks.example:443/T0K3N", "https://hooks.example"],
  ["http://127.0.0.1:9/x", "http://127.0.0.1:9"],
  ["https://[2001:db8::1]:8443/T0K3N", "https://[2001:db8::1]:8443"],
  ["https://user:pa55@hooks.example/T0K3N", "https://hooks.example"],
  ["HTTPS://Hooks.Example/T0K3N", "https://hooks.example"],
  ["https://hooks.example?key=s3cr3t", "https://hooks.example"],
  ["mailto:T0K3N@hooks.example", ""],
  ["not a url T0K3N", ""],
  ["", ""],
];

for (const [url, origin] of cases) {
  test(`${url || "(empty)"} → ${origin || "(empty)"}`, (t) => {
    t.is(urlOrigin(url), origin);
  });
}
