// `npm start`: every service and the gateway in one process, on embedded PostgreSQL
// and the in-process bus unless DATABASE_URL / NATS_URL say otherwise.
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { Code, ConnectError } from "@connectrpc/connect";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { openDatabaseServer } from "../platform/db.js";
import { loadConfigOrExit, onShutdown, reportProcessFailures } from "../platform/lifecycle.js";
import { createLogger, fileAndTerminalDestination } from "../platform/logger.js";
import { OPERATOR } from "../common/actor.js";
import { DASHBOARD_PATH, inviteUrl } from "../common/dashboard-links.js";
import { gatewayUrl, keepGatewayUrl, loopbackHost } from "../platform/gateway-address.js";
import { actingAs } from "../platform/acting-as.js";
import { keepInternalToken } from "../platform/rpc-auth.js";
import { seedDemoStore, type DemoStore } from "./seed.js";
import { startAll } from "./start-all.js";

const DEMO_MEMBER_EMAIL = "demo@example.com";
const startedAt = Date.now();
const given = loadConfigOrExit("start");
// LOG_LEVEL unset: the log goes to a file and only warnings and worse to the terminal,
// so the banner below is what a first start shows. Set, every line at that level goes
// to stdout, as each role alone logs.
const logFile = process.env.LOG_LEVEL ? undefined : path.resolve(given.DATA_DIR, "logs", "start.log");
const logDestination = logFile ? fileAndTerminalDestination(logFile) : undefined;
const logger = createLogger("start", given.LOG_LEVEL, logDestination);
reportProcessFailures(logger);
const database = await openDatabaseServer(given, logger);
// INTERNAL_TOKEN as set, else the one kept in DATA_DIR (made on the first start), where
// `store-admin` finds it.
const config = { ...given, INTERNAL_TOKEN: await keepInternalToken(given.DATA_DIR, given.INTERNAL_TOKEN) };

/** The demo member's invitation, kept beside the demo key: a local development file. */
interface DemoInvitation {
  token: string;
  expires_at: string;
}
type DemoFile = DemoStore & { invitation?: DemoInvitation };
const demoFile = path.resolve(config.DATA_DIR, "demo-store.json");

const all = await startAll(config, database.url, { logDestination });
const clients = all.clients;
// Where `store-admin status` finds this gateway when run without PORT (the port it got, when PORT is 0).
await keepGatewayUrl(config.DATA_DIR, gatewayUrl({ HOST: config.HOST, PORT: all.gatewayPort }));

const demo = await ensureDemoStore();
const demoSignIn = await demoMemberSignIn(demo);

onShutdown(logger, async () => {
  await all.close();
  await database.close();
});

const url = config.PUBLIC_BASE_URL;
process.stdout.write(
  [
    "",
    `Store Order API listening on ${url} (started in ${((Date.now() - startedAt) / 1000).toFixed(1)} s)`,
    `Demo store ${demo.store_id}`,
    `Demo API key: ${demo.key}`,
    `Try: curl -H "Authorization: Bearer ${demo.key}" "${url}/v1/products?limit=2"`,
    ...demoSignIn,
    all.metricsPort > 0
      ? `Metrics of every role (Prometheus, not on the API's port): http://${loopbackHost(config.METRICS_HOST)}:${all.metricsPort}/metrics`
      : "Metrics: not served (the metrics port was taken; see the log, METRICS_PORT picks another)",
    ...(logFile ? [`Log: ${shownPath(logFile)} (warnings and errors show on this terminal too; LOG_LEVEL=info prints every line to this terminal instead)`] : []),
    "",
  ].join("\n") + "\n",
);

/**
 * The demo store is made on the first start and its key kept in DATA_DIR (a local
 * development convenience: the key is printed on every start). If that key no longer
 * works (another database, a revoked key), a new demo store is made.
 */
async function ensureDemoStore(): Promise<DemoFile> {
  if (existsSync(demoFile)) {
    const saved = JSON.parse(await readFile(demoFile, "utf8")) as DemoFile;
    // Looked up by id among the store's keys, not authenticated: a start is not a use,
    // and must not move the key's "Last used" on the dashboard.
    try {
      const { apiKeys } = await clients.store.listApiKeys({ storeId: saved.store_id });
      if (apiKeys.some((key) => key.id === saved.key_id && !key.revokedAt)) return saved;
    } catch (error) {
      if (!(error instanceof ConnectError && (error.code === Code.NotFound || error.code === Code.InvalidArgument))) throw error;
    }
  }
  // The operator's doing, as with `store-admin seed` (the catalog checks who acts).
  const created = await actingAs(OPERATOR, () => seedDemoStore(clients));
  await saveDemoFile(created);
  logger.info({ storeId: created.store_id }, "demo store seeded");
  return created;
}

/**
 * The demo member's way in, as banner lines. Their invitation is made once and its token
 * kept in demo-store.json (the catalog keeps only its hash), so every start prints the
 * same link while the catalog says it is still open; once used, the member signs in
 * with their password. Only a link that expired or was revoked, with no demo member
 * signed up, is replaced by a new invitation (each one is in the store's audit log).
 */
async function demoMemberSignIn(demo: DemoFile): Promise<string[]> {
  const base = config.PUBLIC_BASE_URL;
  const saved = demo.invitation;
  if (saved) {
    const { state } = await clients.accounts.checkLink({ kind: "invitation", token: saved.token });
    if (state === "pending") return [invitationLine(saved)];
  }
  const { members } = await clients.accounts.listMembers({ storeId: demo.store_id });
  if (members.some((member) => member.email === DEMO_MEMBER_EMAIL && member.status === "active")) {
    return [
      `Dashboard: sign in at ${base}${DASHBOARD_PATH}/login as ${DEMO_MEMBER_EMAIL} with the password you chose`,
      `  Forgot it? ${base}${DASHBOARD_PATH}/forgot-password mails a reset link${config.SMTP_URL ? "" : ` (a file in ${shownPath(path.resolve(config.DATA_DIR, "mail"))})`},`,
      `  or npx store-admin user invite --store ${demo.store_id} --email ${DEMO_MEMBER_EMAIL} prints a one-time link that sets a new one`,
    ];
  }
  // The catalog audits the invitation, as the operator's.
  const invited = await actingAs(OPERATOR, () => clients.accounts.inviteMember({ storeId: demo.store_id, email: DEMO_MEMBER_EMAIL }));
  const invitation = { token: invited.invitationToken, expires_at: timestampDate(invited.expiresAt!).toISOString() };
  await saveDemoFile({ ...demo, invitation });
  return [invitationLine(invitation)];

  function invitationLine(invitation: DemoInvitation): string {
    const until = `${invitation.expires_at.slice(0, 16).replace("T", " ")} UTC`;
    return `Dashboard: sign in as ${DEMO_MEMBER_EMAIL} with this one-time link (until ${until}): ${inviteUrl(base, invitation.token)}`;
  }
}

async function saveDemoFile(demo: DemoFile): Promise<void> {
  await mkdir(config.DATA_DIR, { recursive: true });
  await writeFile(demoFile, JSON.stringify(demo, null, 2) + "\n", { mode: 0o600 });
}

/** A path as typed from here when it is below the working directory (`.data/logs/start.log`), else whole. */
function shownPath(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative && !relative.startsWith("..") && !path.isAbsolute(relative) ? `.${path.sep}${relative}` : file;
}
