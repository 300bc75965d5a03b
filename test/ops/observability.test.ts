// `docker compose --profile observability`: Jaeger, Prometheus and Grafana configured
// by files in deploy/observability/, held to the product without a Docker engine. Every
// metric a dashboard panel or an alert names must be one the roles export, or the
// panel is empty and the alert never fires.
import test from "ava";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { registry } from "../../platform/metrics.js";
import { compose, environmentOf, ROLES } from "../helpers/compose.js";
import { ROOT } from "../helpers/process.js";

const DIR = path.join(ROOT, "deploy/observability");
const yamlFile = (file: string) => parse(readFileSync(path.join(DIR, file), "utf8"));
const dashboard = JSON.parse(readFileSync(path.join(DIR, "grafana/dashboards/store-order.json"), "utf8"));
const alerts = yamlFile("alerts.yml");
const prometheus = yamlFile("prometheus.yml");

/** PromQL's own words: functions, aggregations and keywords, never metric names. */
const PROMQL_WORDS = new Set(
  "sum min max avg count stddev stdvar topk bottomk quantile count_values group rate irate increase delta idelta deriv histogram_quantile clamp_min clamp_max clamp abs ceil floor round exp ln log2 log10 sqrt time vector scalar label_replace label_join absent absent_over_time sum_over_time avg_over_time max_over_time min_over_time count_over_time by without on ignoring group_left group_right bool and or unless offset inf nan".split(" "),
);

/** The metric names a PromQL expression reads. */
export function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, "") // label values
    .replace(/\{[^}]*\}/g, "") // label matchers
    .replace(/\[[^\]]*\]/g, "") // range durations
    .replace(/\b(by|without|on|ignoring)\s*\([^)]*\)/g, "") // grouping labels
    .replace(/(?<![A-Za-z_:])\d+(\.\d+)?(e[-+]?\d+)?/gi, ""); // numbers, 1e-9 too
  const names = [...bare.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*/g)].map((m) => m[0]).filter((word) => !PROMQL_WORDS.has(word.toLowerCase()));
  return [...new Set(names)];
}

/** A histogram's series are its name with _bucket, _sum or _count. */
const family = (name: string) => name.replace(/_(bucket|sum|count)$/, "");

async function exported(): Promise<Set<string>> {
  const text = await registry.metrics();
  return new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!));
}

test("the observability services run only under their profile, from the repository's files", (t) => {
  for (const name of ["jaeger", "prometheus", "grafana"]) {
    const service = compose.services[name];
    t.truthy(service, `${name} is in the compose file`);
    t.deepEqual(service.profiles, ["observability"], `${name} starts only with --profile observability`);
    for (const volume of service.volumes ?? []) {
      const source = String(volume).split(":")[0]!;
      t.true(existsSync(path.join(ROOT, source)), `${name} mounts ${source}, which is in the repository`);
    }
    for (const port of service.ports ?? []) t.regex(String(port), /^127\.0\.0\.1:/, `${name}'s UI is published on loopback only`);
  }
  t.is(compose.services.jaeger.environment.COLLECTOR_OTLP_ENABLED, "true", "Jaeger takes OTLP");
  // The roles send traces to it when told to.
  for (const role of ROLES) t.is(environmentOf(role, { OTEL_EXPORTER_OTLP_ENDPOINT: "http://jaeger:4318" }).OTEL_EXPORTER_OTLP_ENDPOINT, "http://jaeger:4318");
  for (const role of ROLES) t.is(environmentOf(role).OTEL_EXPORTER_OTLP_ENDPOINT, "", `${role}: no tracing unless asked`);
});

test("Prometheus scrapes every role's metrics port and loads the alert rules", (t) => {
  const [job] = prometheus.scrape_configs;
  const discovered = job.dns_sd_configs[0];
  t.deepEqual([...discovered.names].sort(), [...ROLES].sort(), "every role, every replica (DNS A records)");
  for (const role of ROLES) t.is(String(discovered.port), environmentOf(role).METRICS_PORT ?? "", `${role} serves /metrics where Prometheus looks`);
  t.deepEqual(prometheus.rule_files, ["/etc/prometheus/alerts.yml"]);
  t.true(compose.services.prometheus.volumes.includes("./deploy/observability/alerts.yml:/etc/prometheus/alerts.yml:ro"));
});

test("Grafana is provisioned with Prometheus and Jaeger and the dashboard has every panel the issue names", (t) => {
  const sources = yamlFile("grafana/provisioning/datasources/datasources.yml").datasources;
  t.deepEqual(sources.map((s: any) => s.type).sort(), ["jaeger", "prometheus"]);
  const provider = yamlFile("grafana/provisioning/dashboards/dashboards.yml").providers[0];
  t.true(compose.services.grafana.volumes.some((v: string) => v.endsWith(`:${provider.options.path}:ro`)), "the dashboards folder is mounted where the provider reads");
  const titles = dashboard.panels.map((p: any) => p.title);
  for (const wanted of ["Requests by route", "p99 latency by route", "5xx responses", "Outbox lag", "Webhook success rate", "Deliveries waiting", "NATS consumer pending"]) t.true(titles.includes(wanted), wanted);
  for (const panel of dashboard.panels) t.is(panel.datasource.uid, sources.find((s: any) => s.type === "prometheus").uid, `${panel.title} reads the provisioned Prometheus`);
});

test("alert rules cover the 5xx rate, outbox lag and webhook failures, each explained", (t) => {
  const rules = alerts.groups.flatMap((g: any) => g.rules);
  for (const [alert, metric] of [["GatewayErrorRate", "http_requests_total"], ["OutboxLag", "outbox_oldest_event_age_seconds"], ["WebhookFailureRate", "webhook_attempts_total"]] as const) {
    const rule = rules.find((r: any) => r.alert === alert);
    t.truthy(rule, alert);
    t.true(metricNames(rule.expr).includes(metric), `${alert} reads ${metric}`);
    t.truthy(rule.annotations?.summary && rule.annotations?.description, `${alert} says what is wrong`);
  }
});

test("every metric the dashboard and the alerts name is one the roles export", async (t) => {
  const names = await exported();
  const used = [
    ...dashboard.panels.flatMap((p: any) => p.targets.map((target: any) => target.expr)),
    ...alerts.groups.flatMap((g: any) => g.rules.map((r: any) => r.expr)),
  ].flatMap(metricNames);
  t.true(used.length >= 8);
  for (const name of new Set(used)) t.true(names.has(family(name)), `${name} is exported (/metrics lists ${family(name)})`);
});

test("the metric-name reader sees through PromQL's functions, matchers and grouping", (t) => {
  t.deepEqual(metricNames('histogram_quantile(0.99, sum by (le, route) (rate(http_request_duration_seconds_bucket{code=~"5.."}[5m])))'), ["http_request_duration_seconds_bucket"]);
  t.deepEqual(metricNames("sum(rate(a_total[5m])) / clamp_min(sum(rate(b_total[5m])), 1e-9) > 0.02"), ["a_total", "b_total"]);
});
