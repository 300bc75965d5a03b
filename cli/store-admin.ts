// store-admin: the operator CLI (docs/cli.md). JSON on stdout; errors on stderr, exit 1.
import { OPERATOR } from "../common/actor.js";
import { AUDIT_ACTIONS, isAuditAction } from "../common/audit.js";
import { DEFAULT_INVITE_ROLE, isRole, ROLES, type Role } from "../common/roles.js";
import { isScope, SCOPES } from "../common/scopes.js";
import { AUDIT_LIST_MAX, decodeAuditCursor, storeAuditLog } from "../platform/audit-log.js";
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { Code, ConnectError } from "@connectrpc/connect";
import { AccountService } from "../gen/catalog/v1/account_pb.js";
import { CatalogService, StoreService } from "../gen/catalog/v1/catalog_pb.js";
import { BankReconciliationService } from "../gen/order/v1/bank_pb.js";
import { OrderService } from "../gen/order/v1/order_pb.js";
import { WebhookService } from "../gen/webhook/v1/webhook_pb.js";
import { Health, HealthCheckResponse_ServingStatus as ServingStatus } from "../gen/grpc/health/v1/health_pb.js";
import { orderJson, refundJson } from "../common/public-json.js";
import { once } from "node:events";
import { inviteUrl } from "../common/dashboard-links.js";
import { orderCsv } from "../common/order-csv.js";
import { StatementError } from "../common/bank-statement.js";
import { pino } from "pino";
import { loadConfig } from "../platform/config.js";
import { createLogger } from "../platform/logger.js";
import { textProblem } from "../common/text.js";
import { keptInternalToken } from "../platform/rpc-auth.js";
import { createRpcChannel, type RpcChannel } from "../platform/rpc-client.js";
import { apiKeyJson, apiKeyListJson, itemJson, planFromName, statusFromName, storeJson } from "./catalog-json.js";
import { auditJson, memberJson } from "./account-json.js";
import { bankMutationJson, mutationResultJson } from "./bank-json.js";
import { ImportInterrupted, importStatement } from "../gateway/bank-import.js";
import { seedDemoStore } from "./seed.js";
import { deliveryJson, endpointJson, eventJson } from "./webhook-json.js";

class UsageError extends Error {}

const USAGE = `usage: store-admin <command> [options]

  store create --name N [--plan starter|growth|scale] [--bank-name N --bank-code C --account-number A --account-holder H]
  store set-plan --store ID --plan P
  key create --store ID [--name N] [--scopes S1,S2]
                                            scopes: catalog:read, catalog:write, orders:read, orders:write,
                                            payments:write; all five unless given
  key revoke --store ID --key ID
  key list --store ID         every key: name, prefix, scopes, created by, created, last used, revoked (never the key)
  product create --store ID --title T --price N [--slug S] [--status published|draft]
  bundle create --store ID --title T --price N --product ID [--product ID ...] [--status ...]
  webhook set --store ID --url URL [--mode test|live]
                                            the store's only endpoint of the mode: create it, or replace its URL and secret
  webhook add --store ID --url URL [--description D] [--events T1,T2] [--mode test|live]
                                            a test endpoint receives only test events (default: live)
  webhook list --store ID [--mode test|live]
  webhook update --store ID --endpoint ID [--url U] [--description D] [--events T1,T2|all] [--enabled true|false]
                 [--resend-since ISO]       with the endpoint enabled: send again every event since then that did not reach it
                 [--max-per-second N|none]  at most N deliveries a second (1–1000), or no limit
  webhook remove --store ID --endpoint ID
  webhook rotate --store ID [--endpoint ID]
  webhook test --store ID --endpoint ID     queue a signed webhook.test event
  webhook events --store ID [--order ID] [--type T] [--mode test|live]
  webhook replay --store ID --endpoint ID --since ISO
  webhook deliveries --store ID [--order ID] [--endpoint ID]
  webhook redeliver --store ID --delivery ID
  user invite --store ID --email E [--role owner|developer|support|viewer]
                                            mails a one-time sign-in link, valid 72 h, and prints it as invite_url;
                                            the role defaults to owner
  user list --store ID                      every member with their role
  user role --store ID --user ID --role R   change a member's role; a store keeps at least one owner
  user remove --store ID --user ID [--keep-api-keys]
                                            ends that user's sessions at once; never the last owner; the API keys
                                            they created are revoked unless --keep-api-keys (printed either way)
  order mark-paid --store ID --order ID
  order cancel --store ID --order ID
  order refund --store ID --order ID [--amount N] --reason R [--reference R]
  order export --store ID [--status S] [--search Q]
                                            every order of the filter as CSV on stdout (header row, integer
                                            rupiah, ISO UTC times), newest first
                                            without --amount: all that is left; a bank transfer's refund records money sent back
  bank import --store ID --file statement.csv   match a statement (id,occurred_at,amount,type,description) to orders
  bank unmatched --store ID                 credits waiting for review
  bank assign --store ID --mutation ID --order ID|SO-…   pay an order with an unmatched credit
  bank dismiss --store ID --mutation ID
  audit --store ID [--actor A] [--action A] [--limit N] [--cursor C]
                                            the store's audit log, newest first, as sentences;
                                            next_cursor (when more) gives the next page
  seed

Every command that changes something is written to the store's audit log as "operator".
  status                      health of every service and the gateway; exit 1 if any is down`;

const options = {
  name: { type: "string" },
  plan: { type: "string" },
  "bank-name": { type: "string" },
  "bank-code": { type: "string" },
  "account-number": { type: "string" },
  "account-holder": { type: "string" },
  store: { type: "string" },
  key: { type: "string" },
  order: { type: "string" },
  url: { type: "string" },
  delivery: { type: "string" },
  title: { type: "string" },
  price: { type: "string" },
  slug: { type: "string" },
  status: { type: "string" },
  search: { type: "string" },
  product: { type: "string", multiple: true },
  endpoint: { type: "string" },
  description: { type: "string" },
  events: { type: "string" },
  mode: { type: "string" },
  enabled: { type: "string" },
  since: { type: "string" },
  "resend-since": { type: "string" },
  "max-per-second": { type: "string" },
  type: { type: "string" },
  email: { type: "string" },
  user: { type: "string" },
  role: { type: "string" },
  scopes: { type: "string" },
  "keep-api-keys": { type: "boolean" },
  file: { type: "string" },
  mutation: { type: "string" },
  amount: { type: "string" },
  reason: { type: "string" },
  reference: { type: "string" },
  actor: { type: "string" },
  action: { type: "string" },
  limit: { type: "string" },
  cursor: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof options; allowPositionals: true }>>["values"];

function required(values: Values, name: keyof Values): string {
  const value = values[name];
  if (typeof value !== "string" || value === "") throw new UsageError(`--${name} is required`);
  return value;
}

function price(values: Values): bigint {
  const text = required(values, "price");
  if (!/^[0-9]{1,13}$/.test(text)) throw new UsageError("--price must be a whole number of rupiah");
  return BigInt(text);
}

/** `--amount N`: a positive whole number of rupiah, or undefined when not given. */
function amount(values: Values): bigint | undefined {
  if (values.amount === undefined) return undefined;
  if (!/^[0-9]{1,15}$/.test(values.amount) || BigInt(values.amount) === 0n) throw new UsageError("--amount must be a positive whole number of rupiah");
  return BigInt(values.amount);
}

function plan(text: string) {
  const value = planFromName(text);
  if (value === undefined) throw new UsageError("--plan must be starter, growth or scale");
  return value;
}

/** `--role`: one of the roles of docs/team.md#roles; `fallback` when not given. */
function role(values: Values, fallback?: Role): Role {
  if (values.role === undefined && fallback) return fallback;
  const value = required(values, "role");
  if (!isRole(value)) throw new UsageError(`--role must be ${ROLES.join(", ")}`);
  return value;
}

/** `--scopes a,b` → those scopes (unset: none, which the catalog reads as all five for the operator). */
function scopes(values: Values): string[] {
  if (values.scopes === undefined) return [];
  const listed = values.scopes.split(",").map((scope) => scope.trim()).filter((scope) => scope !== "");
  if (listed.length === 0) throw new UsageError(`--scopes must be a comma-separated list of: ${SCOPES.join(", ")}`);
  const unknown = listed.find((scope) => !isScope(scope));
  if (unknown !== undefined) throw new UsageError(`--scopes: unknown scope "${unknown}"; scopes are ${SCOPES.join(", ")}`);
  return listed;
}

function itemStatus(values: Values) {
  if (values.status === undefined) return statusFromName("published")!;
  const value = statusFromName(values.status);
  if (value === undefined) throw new UsageError("--status must be draft, published or archived");
  return value;
}

/** `--events T1,T2` or `all` → the subscription (unset: undefined). */
function subscription(values: Values) {
  if (values.events === undefined) return undefined;
  const text = values.events.trim();
  if (text === "all") return { all: true, types: [] };
  const types = text.split(",").map((type) => type.trim()).filter((type) => type !== "");
  if (types.length === 0) throw new UsageError("--events must be all or a comma-separated list of event types");
  return { all: false, types };
}

function enabled(values: Values): boolean | undefined {
  if (values.enabled === undefined) return undefined;
  if (values.enabled !== "true" && values.enabled !== "false") throw new UsageError("--enabled must be true or false");
  return values.enabled === "true";
}

/** --mode of the webhook commands (docs/webhooks.md#test-mode): test, live, or unset (undefined). */
function webhookMode(values: Values): { testMode?: boolean } {
  if (values.mode === undefined) return {};
  if (values.mode !== "test" && values.mode !== "live") throw new UsageError("--mode must be test or live");
  return { testMode: values.mode === "test" };
}

/** --max-per-second: N as typed (the webhook service checks 1–1000), or "none" for no limit (empty). */
function rateOption(value: string): string {
  return value === "none" ? "" : value;
}

interface Channels {
  catalog: RpcChannel;
  order: RpcChannel;
  webhook: RpcChannel;
  gatewayUrl: string;
  publicBaseUrl: string;
  addrs: Record<"catalog" | "order" | "webhook", string>;
}

class Unhealthy extends Error {
  constructor(readonly report: unknown) {
    super("not every part is healthy");
  }
}

async function status(channels: Channels) {
  const report: Record<string, { address: string; status: string; checks?: unknown }> = {};
  for (const name of ["catalog", "order", "webhook"] as const) {
    try {
      const answer = await channels[name].client(Health).check({ service: "" }, { timeoutMs: 2_000 });
      report[name] = { address: channels.addrs[name], status: ServingStatus[answer.status] ?? String(answer.status) };
    } catch (error) {
      report[name] = { address: channels.addrs[name], status: `UNREACHABLE: ${(error as Error).message}` };
    }
  }
  try {
    const response = await fetch(`${channels.gatewayUrl}/readyz`, { signal: AbortSignal.timeout(3_000) });
    const body = (await response.json()) as { data?: { checks?: unknown }; error?: { details?: unknown } };
    report.gateway = {
      address: channels.gatewayUrl,
      status: response.ok ? "READY" : "NOT_READY",
      checks: body.data?.checks ?? body.error?.details,
    };
  } catch (error) {
    report.gateway = { address: channels.gatewayUrl, status: `UNREACHABLE: ${(error as Error).message}` };
  }
  const healthy = Object.values(report).every((part) => part.status === "SERVING" || part.status === "READY");
  if (!healthy) throw new Unhealthy(report);
  return report;
}

async function run(argv: string[], channels: Channels): Promise<unknown> {
  const { values, positionals } = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  const command = positionals.join(" ");
  if (values.help || command === "") throw new UsageError("");
  // The same text rule as every other door (common/text.ts), checked here so the
  // operator reads which option was wrong rather than a field name of the gRPC API.
  for (const [name, value] of Object.entries(values)) {
    for (const text of Array.isArray(value) ? value : typeof value === "string" ? [value] : []) {
      const problem = textProblem(text);
      if (problem) throw new UsageError(`--${name} ${problem}`);
    }
  }
  const stores = channels.catalog.client(StoreService);
  const items = channels.catalog.client(CatalogService);
  const orders = channels.order.client(OrderService);
  const webhooks = channels.webhook.client(WebhookService);
  const accounts = channels.catalog.client(AccountService);
  const bank = channels.order.client(BankReconciliationService);
  // Every call states the operator (the channels'); the service that makes a change
  // checks who acts and writes the audit entry in the change's transaction.

  switch (command) {
    case "store create": {
      const bankFields = [values["bank-name"], values["bank-code"], values["account-number"], values["account-holder"]];
      const someBank = bankFields.some((value) => value !== undefined);
      if (someBank && !bankFields.every((value) => value !== undefined)) {
        throw new UsageError("a bank account needs --bank-name, --bank-code, --account-number and --account-holder");
      }
      const created = await stores.createStore({
        name: required(values, "name"),
        plan: plan(values.plan ?? "growth"),
        bankAccount: someBank
          ? {
              bankName: values["bank-name"]!,
              bankCode: values["bank-code"]!,
              accountNumber: values["account-number"]!,
              accountHolder: values["account-holder"]!,
            }
          : undefined,
      });
      return storeJson(created.store!);
    }
    case "store set-plan": {
      const storeId = required(values, "store");
      const { store } = await stores.setStorePlan({ storeId, plan: plan(required(values, "plan")) });
      return storeJson(store!);
    }
    case "key create": {
      const storeId = required(values, "store");
      const created = await stores.createApiKey({ storeId, name: values.name ?? "", scopes: scopes(values) });
      return { id: created.apiKey!.id, key: created.secret };
    }
    case "key list": {
      const { apiKeys } = await stores.listApiKeys({ storeId: required(values, "store") });
      return { keys: apiKeys.map(apiKeyListJson) };
    }
    case "key revoke": {
      const storeId = required(values, "store");
      const keyId = required(values, "key");
      const { apiKey } = await stores.revokeApiKey({ storeId, keyId });
      return apiKeyJson(apiKey!);
    }
    case "product create": {
      const storeId = required(values, "store");
      const { item } = await items.createProduct({ storeId, title: required(values, "title"), price: price(values), slug: values.slug ?? "", status: itemStatus(values) });
      return itemJson(item!);
    }
    case "bundle create": {
      if (!values.product || values.product.length === 0) throw new UsageError("--product is required (one or more)");
      const storeId = required(values, "store");
      const { item } = await items.createBundle({
        storeId,
        title: required(values, "title"),
        price: price(values),
        slug: values.slug ?? "",
        status: itemStatus(values),
        productIds: values.product,
      });
      return itemJson(item!);
    }
    case "webhook set": {
      const storeId = required(values, "store");
      const { endpoint, secret } = await webhooks.setEndpoint({ storeId, url: required(values, "url"), ...webhookMode(values) });
      return { id: endpoint!.id, url: endpoint!.url, secret };
    }
    case "webhook add": {
      const storeId = required(values, "store");
      const { endpoint, secret } = await webhooks.createEndpoint({ storeId, url: required(values, "url"), description: values.description ?? "", events: subscription(values), ...webhookMode(values) });
      return { ...endpointJson(endpoint!), secret };
    }
    case "webhook list": {
      const { endpoints } = await webhooks.listEndpoints({ storeId: required(values, "store"), ...webhookMode(values) });
      return { endpoints: endpoints.map(endpointJson) };
    }
    case "webhook update": {
      const storeId = required(values, "store");
      const endpointId = required(values, "endpoint");
      const update = {
        url: values.url,
        description: values.description,
        events: subscription(values),
        enabled: enabled(values),
        resendFailedSince: values["resend-since"],
        maxPerSecond: values["max-per-second"] === undefined ? undefined : rateOption(values["max-per-second"]),
      };
      if (Object.values(update).every((value) => value === undefined)) {
        throw new UsageError("say what to change: --url, --description, --events, --enabled, --resend-since or --max-per-second");
      }
      const { endpoint } = await webhooks.updateEndpoint({ storeId, endpointId, ...update });
      return endpointJson(endpoint!);
    }
    case "webhook remove": {
      const storeId = required(values, "store");
      const endpointId = required(values, "endpoint");
      const { endpoint } = await webhooks.deleteEndpoint({ storeId, endpointId });
      return { ...endpointJson(endpoint!), deleted: true };
    }
    case "webhook rotate": {
      const storeId = required(values, "store");
      const rotated = await webhooks.rotateSecret({ storeId, endpointId: values.endpoint ?? "" });
      return {
        id: rotated.endpoint!.id,
        url: rotated.endpoint!.url,
        secret: rotated.secret,
        previous_secret_expires_at: rotated.previousSecretExpiresAt,
      };
    }
    case "webhook test": {
      const storeId = required(values, "store");
      const endpointId = required(values, "endpoint");
      const { delivery } = await webhooks.sendTestEvent({ storeId, endpointId });
      return deliveryJson(delivery!);
    }
    case "webhook events": {
      const { events } = await webhooks.listEvents({ storeId: required(values, "store"), orderId: values.order ?? "", type: values.type ?? "", ...webhookMode(values) });
      return { events: events.map(eventJson) };
    }
    case "webhook replay": {
      const storeId = required(values, "store");
      const endpointId = required(values, "endpoint");
      const since = required(values, "since");
      const { queued } = await webhooks.replayEvents({ storeId, endpointId, since });
      return { endpoint_id: endpointId, since, queued };
    }
    case "webhook deliveries": {
      const { deliveries } = await webhooks.listDeliveries({
        storeId: required(values, "store"),
        orderId: values.order ?? "",
        endpointId: values.endpoint ?? "",
      });
      return { items: deliveries.map(deliveryJson) };
    }
    case "webhook redeliver": {
      const storeId = required(values, "store");
      const deliveryId = required(values, "delivery");
      const { delivery } = await webhooks.redeliver({ storeId, deliveryId });
      return deliveryJson(delivery!);
    }
    case "user invite": {
      const storeId = required(values, "store");
      const invited = await accounts.inviteMember({ storeId, email: required(values, "email"), role: role(values, DEFAULT_INVITE_ROLE) });
      return { id: invited.member!.id, email: invited.member!.email, role: invited.member!.role, invite_url: inviteUrl(channels.publicBaseUrl, invited.invitationToken) };
    }
    case "user role": {
      const storeId = required(values, "store");
      const memberId = required(values, "user");
      const { member } = await accounts.setMemberRole({ storeId, memberId, role: role(values) });
      return memberJson(member!);
    }
    case "user list": {
      const { members } = await accounts.listMembers({ storeId: required(values, "store") });
      return { users: members.map(memberJson) };
    }
    case "user remove": {
      const storeId = required(values, "store");
      const keepApiKeys = values["keep-api-keys"] === true;
      const { member, apiKeys } = await accounts.removeMember({ storeId, memberId: required(values, "user"), keepApiKeys });
      return { ...memberJson(member!), removed: true, [keepApiKeys ? "kept_api_keys" : "revoked_api_keys"]: apiKeys };
    }
    case "order mark-paid": {
      const storeId = required(values, "store");
      const orderId = required(values, "order");
      const { order } = await orders.markOrderPaid({ storeId, orderId });
      return orderJson(order!);
    }
    case "order cancel": {
      const storeId = required(values, "store");
      const orderId = required(values, "order");
      const { order } = await orders.cancelOrder({ storeId, orderId });
      return orderJson(order!);
    }
    case "order export": {
      const storeId = required(values, "store");
      // CSV on stdout, page by page (common/order-csv.ts): never the whole store in memory.
      return new StreamedOutput(orderCsv((request) => orders.listOrders(request, { timeoutMs: 30_000 }), { storeId, status: values.status, search: values.search }));
    }
    case "order refund": {
      const storeId = required(values, "store");
      const orderId = required(values, "order");
      const refundAmount = amount(values);
      const reason = required(values, "reason");
      const { refund, order } = await orders.refundOrder({ storeId, orderId, amount: refundAmount, reason, reference: values.reference, requestHash: "" });
      return { refund: refundJson(refund!), order: orderJson(order!) };
    }
    case "bank import": {
      const storeId = required(values, "store");
      const file = required(values, "file");
      let text: string;
      try {
        text = await readFile(file, "utf8");
      } catch (error) {
        throw new UsageError(`--file ${file}: ${(error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (error as Error).message}`);
      }
      const results = await importStatement(bank, storeId, text);
      return { results: results.map(mutationResultJson) };
    }
    case "bank unmatched": {
      const { mutations } = await bank.listMutations({ storeId: required(values, "store"), review: true });
      return { mutations: mutations.map(bankMutationJson) };
    }
    case "bank assign": {
      const storeId = required(values, "store");
      const mutationId = required(values, "mutation");
      const order = required(values, "order");
      const { mutation } = await bank.assignMutation({ storeId, mutationId, ...(order.toUpperCase().startsWith("SO-") ? { paymentReference: order } : { orderId: order }) });
      return bankMutationJson(mutation!);
    }
    case "bank dismiss": {
      const storeId = required(values, "store");
      const mutationId = required(values, "mutation");
      const { mutation } = await bank.dismissMutation({ storeId, mutationId });
      return bankMutationJson(mutation!);
    }
    case "audit": {
      // Each service keeps the entries of its own changes: the log is their parts merged by time.
      const limit = values.limit === undefined ? undefined : Number(values.limit);
      if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= AUDIT_LIST_MAX)) throw new UsageError(`--limit must be a whole number from 1 to ${AUDIT_LIST_MAX}`);
      if (values.action !== undefined && !isAuditAction(values.action)) throw new UsageError(`--action must be one of: ${AUDIT_ACTIONS.join(", ")}`);
      if (values.cursor !== undefined && !decodeAuditCursor(values.cursor)) throw new UsageError("--cursor must be a next_cursor printed by an earlier page");
      const page = await storeAuditLog({ catalog: accounts, order: orders, webhook: webhooks }, required(values, "store"), {
        limit,
        cursor: values.cursor,
        actor: values.actor,
        action: values.action,
      });
      // A service that could not be asked is named: its part of the log is missing.
      return { entries: page.entries.map(auditJson), ...(page.next ? { next_cursor: page.next } : {}), ...(page.unavailable.length > 0 ? { unavailable: page.unavailable } : {}) };
    }
    case "status":
      return status(channels);
    case "seed":
      return seedDemoStore({ store: stores, catalog: items });
    default:
      throw new UsageError(`unknown command: ${command}`);
  }
}

/** A command whose answer is text written as it comes (an export), not one JSON value. */
class StreamedOutput {
  constructor(readonly chunks: AsyncIterable<string>) {}
}

let channels: Channels | undefined;
const closeAll = () => {
  channels?.catalog.close();
  channels?.order.close();
  channels?.webhook.close();
};
try {
  const config = loadConfig();
  // stdout is the answer's: what the channels have to say (a host name that does not
  // resolve, an instance out of rotation) goes to stderr, warnings only.
  const logger = createLogger("store-admin", "warn", pino.destination(2));
  // INTERNAL_TOKEN, else the one `npm start` keeps in DATA_DIR.
  const internalToken = config.INTERNAL_TOKEN ?? keptInternalToken(config.DATA_DIR);
  channels = {
    // Every call is the operator's (docs/cli.md, docs/team.md#who-acts).
    catalog: createRpcChannel(config.CATALOG_ADDR, { timeoutMs: 10_000, actor: OPERATOR, logger, internalToken, transport: config.RPC_TRANSPORT }),
    order: createRpcChannel(config.ORDER_ADDR, { timeoutMs: 10_000, actor: OPERATOR, logger, internalToken, transport: config.RPC_TRANSPORT }),
    webhook: createRpcChannel(config.WEBHOOK_ADDR, { timeoutMs: 10_000, actor: OPERATOR, logger, internalToken, transport: config.RPC_TRANSPORT }),
    gatewayUrl: process.env.GATEWAY_URL ?? `http://127.0.0.1:${config.PORT}`,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    addrs: { catalog: config.CATALOG_ADDR, order: config.ORDER_ADDR, webhook: config.WEBHOOK_ADDR },
  };
  const result = await run(process.argv.slice(2), channels);
  if (result instanceof StreamedOutput) {
    for await (const chunk of result.chunks) {
      if (!process.stdout.write(chunk)) await once(process.stdout, "drain");
    }
  } else {
    process.stdout.write(JSON.stringify(result, null, 2) + "\n");
  }
  closeAll();
} catch (error) {
  closeAll();
  if (error instanceof Unhealthy) {
    // The report is the answer either way: print it, and say so on stderr with exit 1.
    process.stdout.write(JSON.stringify(error.report, null, 2) + "\n");
    process.stderr.write(`store-admin: ${error.message}\n`);
  } else if (error instanceof UsageError) {
    process.stderr.write((error.message ? `store-admin: ${error.message}\n\n` : "") + USAGE + "\n");
  } else if (error instanceof StatementError || error instanceof ImportInterrupted) {
    process.stderr.write(`store-admin: ${error.message}\n`);
  } else if (error instanceof ConnectError) {
    process.stderr.write(`store-admin: ${error.rawMessage} (${codeName(error)})\n`);
  } else {
    process.stderr.write(`store-admin: ${(error as Error).message}\n`);
  }
  process.exitCode = 1;
}

function codeName(error: ConnectError): string {
  return Code[error.code] ?? String(error.code);
}
