// store-admin: the operator CLI (docs/cli.md). JSON on stdout; errors on stderr, exit 1.
import { OPERATOR } from "../common/actor.js";
import { AUDIT_ACTIONS, isAuditAction } from "../common/audit.js";
import { ASSIGN_ANYWAY_HINT } from "../common/bank-mutations.js";
import { DEFAULT_INVITE_ROLE, isRole, ROLES, type Role } from "../common/roles.js";
import { isScope, SCOPES } from "../common/scopes.js";
import { isKeyMode } from "../common/key-mode.js";
import { AUDIT_LIST_MAX, decodeAuditCursor, storeAuditLog } from "../platform/audit-log.js";
import { readFile } from "node:fs/promises";
import { Code, ConnectError, type Client } from "@connectrpc/connect";
import { AccountService } from "../gen/catalog/v1/account_pb.js";
import { CatalogService, ItemStatus, StoreService } from "../gen/catalog/v1/catalog_pb.js";
import { BankReconciliationService } from "../gen/order/v1/bank_pb.js";
import { OrderService } from "../gen/order/v1/order_pb.js";
import { WebhookService } from "../gen/webhook/v1/webhook_pb.js";
import { Health, HealthCheckResponse_ServingStatus as ServingStatus } from "../gen/grpc/health/v1/health_pb.js";
import { orderDetailJson, orderJson, refundJson } from "../common/public-json.js";
import { once } from "node:events";
import { realpathSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
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
import { parseCommandLine, UsageError, usageErrorText, type CommandLine, type Values } from "./args.js";
import { orderIdOf, orderKeyOf, type OrderKey } from "../common/order-reference.js";
import { clientGatewayUrl } from "../platform/gateway-address.js";
import { listenForWebhooks } from "./webhook-listen.js";

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

/** `--mode live|test` (docs/keys.md#test-mode): `testMode` when given, nothing when not. */
function modeOption(values: Values): { testMode?: boolean } {
  if (values.mode === undefined) return {};
  if (!isKeyMode(values.mode)) throw new UsageError(`--mode must be live or test`);
  return { testMode: values.mode === "test" };
}

/** `--stock N` (units on hand, tracked) or, where `none` is allowed, `none` (not tracked); undefined when not given. */
function stockOption(values: Values, noneAllowed: boolean): { quantity?: bigint } | undefined {
  if (values.stock === undefined) return undefined;
  if (noneAllowed && values.stock === "none") return {};
  if (!/^[0-9]{1,15}$/.test(values.stock)) throw new UsageError(`--stock must be a whole number of units${noneAllowed ? " or none" : ""}`);
  return { quantity: BigInt(values.stock) };
}

/** `--items ID:Q,ID:Q`: a bundle's products with how many of each (a bare ID is one); undefined when not given. */
function bundleItemsOption(values: Values): { productId: string; quantity: number }[] | undefined {
  if (values.items === undefined) return undefined;
  const parts = values.items.split(",").map((part) => part.trim()).filter((part) => part !== "");
  if (parts.length === 0) throw new UsageError("--items must be a comma-separated list of product-id:quantity");
  return parts.map((part) => {
    const [productId, quantity = "1", extra] = part.split(":");
    if (!productId || extra !== undefined || !/^[0-9]{1,9}$/.test(quantity)) {
      throw new UsageError(`--items: "${part}" is not product-id:quantity`);
    }
    return { productId, quantity: Number(quantity) };
  });
}

/** An update that names nothing to change is a mistake of the command line, not a change. */
function requireSomeChange(values: Values, options: string[]): void {
  if (options.every((name) => values[name as keyof Values] === undefined)) {
    throw new UsageError(`say what to change: ${options.map((name) => `--${name}`).join(", ")}`);
  }
}

/** `--status` of an update: unchanged (UNSPECIFIED) when not given. */
function statusChange(values: Values) {
  return values.status === undefined ? ItemStatus.UNSPECIFIED : itemStatus(values);
}

/** `--price` of an update: undefined when not given. */
function priceChange(values: Values): bigint | undefined {
  return values.price === undefined ? undefined : price(values);
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


/** --max-per-second: N as typed (the webhook service checks 1–1000), or "none" for no limit (empty). */
function rateOption(value: string): string {
  return value === "none" ? "" : value;
}

/** `--order`: an order id or its payment reference (SO-…, any letter case). */
function orderKey(values: Values): OrderKey {
  const key = orderKeyOf(required(values, "order"));
  if (!key) throw new UsageError("--order must be an order id or a payment reference (SO-…)");
  return key;
}

/** `--order` as an order id: a reference is looked up among the store's orders. */
async function orderId(orders: Client<typeof OrderService>, storeId: string, values: Values): Promise<string> {
  const key = orderKey(values);
  const id = await orderIdOf((request) => orders.listOrders({ ...request, ...modeOption(values) }), storeId, key);
  if (id === undefined) throw new ConnectError(`order ${"paymentReference" in key ? key.paymentReference : key.orderId} not found`, Code.NotFound);
  return id;
}

/** An optional `--order` filter as an order id ("" when not given). */
async function orderFilter(orders: Client<typeof OrderService>, storeId: string, values: Values): Promise<string> {
  return values.order === undefined ? "" : orderId(orders, storeId, values);
}

/** `--port N` of `webhook listen`: 0–65535, 9000 unless given (the walk-through's receiver). */
function listenPort(values: Values): number {
  if (values.port === undefined) return 9000;
  const port = Number(values.port);
  if (!/^[0-9]{1,5}$/.test(values.port) || port > 65535) throw new UsageError("--port must be a port number from 0 to 65535");
  return port;
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

async function run(command: string, values: Values, channels: Channels, io: CliIo): Promise<unknown> {
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
      const created = await stores.createApiKey({ storeId, name: values.name ?? "", scopes: scopes(values), testMode: modeOption(values).testMode ?? false });
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
      const { item } = await items.createProduct({
        storeId,
        title: required(values, "title"),
        price: price(values),
        slug: values.slug ?? "",
        status: itemStatus(values),
        stock: stockOption(values, false),
      });
      return itemJson(item!);
    }
    case "product update": {
      const storeId = required(values, "store");
      if (values.product?.length !== 1) throw new UsageError("--product is required, once");
      requireSomeChange(values, ["title", "price", "slug", "status", "stock"]);
      const { item } = await items.updateItem({
        storeId,
        itemId: values.product[0]!,
        title: values.title,
        slug: values.slug,
        price: priceChange(values),
        status: statusChange(values),
        stock: stockOption(values, true),
      });
      return itemJson(item!);
    }
    case "bundle create": {
      const bundleItems = bundleItemsOption(values);
      if (bundleItems === undefined && (!values.product || values.product.length === 0)) {
        throw new UsageError("give the bundle's products: --items ID:Q,ID:Q or --product ID (one or more)");
      }
      if (bundleItems !== undefined && values.product !== undefined) throw new UsageError("give --items or --product, not both");
      const storeId = required(values, "store");
      const { item } = await items.createBundle({
        storeId,
        title: required(values, "title"),
        price: price(values),
        slug: values.slug ?? "",
        status: itemStatus(values),
        productIds: values.product ?? [],
        bundleItems: bundleItems ?? [],
        stock: stockOption(values, false),
      });
      return itemJson(item!);
    }
    case "bundle update": {
      const storeId = required(values, "store");
      if (values.product !== undefined) throw new UsageError("a bundle's products are changed with --items ID:Q,ID:Q");
      requireSomeChange(values, ["title", "price", "slug", "status", "stock", "items"]);
      const bundleItems = bundleItemsOption(values);
      const { item } = await items.updateItem({
        storeId,
        itemId: required(values, "bundle"),
        title: values.title,
        slug: values.slug,
        price: priceChange(values),
        status: statusChange(values),
        stock: stockOption(values, true),
        replaceBundleItems: bundleItems !== undefined,
        bundleItems: bundleItems ?? [],
      });
      return itemJson(item!);
    }
    case "webhook set": {
      const storeId = required(values, "store");
      const { endpoint, secret } = await webhooks.setEndpoint({ storeId, url: required(values, "url"), ...modeOption(values) });
      return { id: endpoint!.id, url: endpoint!.url, secret };
    }
    case "webhook add": {
      const storeId = required(values, "store");
      const { endpoint, secret } = await webhooks.createEndpoint({ storeId, url: required(values, "url"), description: values.description ?? "", events: subscription(values), ...modeOption(values) });
      return { ...endpointJson(endpoint!), secret };
    }
    case "webhook list": {
      const { endpoints } = await webhooks.listEndpoints({ storeId: required(values, "store"), ...modeOption(values) });
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
      const storeId = required(values, "store");
      const mode = modeOption(values);
      const { events } = await webhooks.listEvents({ storeId, orderId: await orderFilter(orders, storeId, values), type: values.type ?? "", ...mode });
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
      const storeId = required(values, "store");
      const { deliveries } = await webhooks.listDeliveries({
        storeId,
        orderId: await orderFilter(orders, storeId, values),
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
    case "order show": {
      const storeId = required(values, "store");
      const { detail, history, allowedActions } = await orders.getOrder({ storeId, orderId: await orderId(orders, storeId, values), includeHistory: true, ...modeOption(values) });
      // As GET /v1/orders/{id} shows it, with the history and what may be done now, as the dashboard's page.
      return {
        ...orderDetailJson(detail!),
        history: history.map((change) => ({
          from_status: change.fromStatus || null,
          to_status: change.toStatus,
          cause: change.cause,
          at: change.at,
          detail: change.detail || null,
          // A bank payment's credit, in rupiah; null for any other change.
          amount_received: change.amountReceived > 0n ? Number(change.amountReceived) : null,
        })),
        allowed_actions: allowedActions,
      };
    }
    case "order mark-paid": {
      const storeId = required(values, "store");
      const { order } = await orders.markOrderPaid({ storeId, orderId: await orderId(orders, storeId, values), ...modeOption(values) });
      return orderJson(order!);
    }
    case "order cancel": {
      const storeId = required(values, "store");
      const { order } = await orders.cancelOrder({ storeId, orderId: await orderId(orders, storeId, values), ...modeOption(values) });
      return orderJson(order!);
    }
    case "order export": {
      const storeId = required(values, "store");
      // CSV on stdout, page by page (common/order-csv.ts): never the whole store in memory.
      return new StreamedOutput(orderCsv((request) => orders.listOrders({ ...request, ...modeOption(values) }, { timeoutMs: 30_000 }), { storeId, status: values.status, search: values.search }));
    }
    case "order refund": {
      const storeId = required(values, "store");
      const refundAmount = amount(values);
      const reason = required(values, "reason");
      const { refund, order } = await orders.refundOrder({
        storeId,
        orderId: await orderId(orders, storeId, values),
        amount: refundAmount,
        reason,
        reference: values.reference,
        restock: values.restock === true,
        requestHash: "",
        ...modeOption(values),
      });
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
      const results = await importStatement(bank, storeId, text, modeOption(values).testMode);
      return { results: results.map(mutationResultJson) };
    }
    case "bank unmatched": {
      const { mutations } = await bank.listMutations({ storeId: required(values, "store"), review: true, ...modeOption(values) });
      return { mutations: mutations.map(bankMutationJson) };
    }
    case "bank assign": {
      const storeId = required(values, "store");
      const mutationId = required(values, "mutation");
      // The order service takes a reference itself (docs/reconciliation.md#statements).
      const acceptAmountDifference = values["accept-difference"] === true;
      try {
        const { mutation } = await bank.assignMutation({ storeId, mutationId, ...orderKey(values), acceptAmountDifference, ...modeOption(values) });
        return bankMutationJson(mutation!);
      } catch (error) {
        // The service words the difference; the option that accepts it is the CLI's own word.
        if (!acceptAmountDifference && error instanceof ConnectError && error.code === Code.FailedPrecondition && error.rawMessage.endsWith(ASSIGN_ANYWAY_HINT)) {
          throw new ConnectError(`${error.rawMessage} (add --accept-difference to do so)`, error.code);
        }
        throw error;
      }
    }
    case "bank dismiss": {
      const storeId = required(values, "store");
      const mutationId = required(values, "mutation");
      const { mutation } = await bank.dismissMutation({ storeId, mutationId, ...modeOption(values) });
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
    case "webhook listen": {
      const secret = values.secret ?? io.env.WEBHOOK_SECRET;
      if (!secret) throw new UsageError("give the endpoint's secret: --secret whsec_… or WEBHOOK_SECRET");
      const port = listenPort(values);
      let listener;
      try {
        listener = await listenForWebhooks({ port, secret, print: (line) => io.stdout.write(line + "\n") });
      } catch (error) {
        throw new UsageError((error as NodeJS.ErrnoException).code === "EADDRINUSE" ? `--port ${port} is taken: give another` : `--secret: ${(error as Error).message}`);
      }
      io.stderr.write(`store-admin: listening on ${listener.url}/ (any path); stop with Ctrl-C\n`);
      return new Listening(() => listener.close());
    }
    case "seed":
      return seedDemoStore({ store: stores, catalog: items });
    default:
      throw new UsageError(`unknown command: ${command}`);
  }
}

/** A command that runs until it is stopped (a receiver): nothing more to print. */
class Listening {
  constructor(readonly close: () => Promise<void>) {}
}

/** A command whose answer is text written as it comes (an export), not one JSON value. */
class StreamedOutput {
  constructor(readonly chunks: AsyncIterable<string>) {}
}

/**
 * Where one run reads its environment and writes its answer: the process's own, or a
 * test's (test/helpers/cli.ts runs most commands in its own process, through main).
 */
export interface CliIo {
  env: NodeJS.ProcessEnv;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** Runs one command line (`argv` without node and the script); its exit code. */
export async function main(argv: string[], io: CliIo = { env: process.env, stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  let channels: Channels | undefined;
  const closeAll = () => {
    channels?.catalog.close();
    channels?.order.close();
    channels?.webhook.close();
  };
  let commandLine: CommandLine | undefined;
  try {
    commandLine = parseCommandLine(argv);
    if (commandLine.kind === "help") {
      // Asked for: the answer, on stdout with exit 0 (before any configuration is read).
      io.stdout.write(commandLine.text + "\n");
    } else {
      const config = loadConfig(io.env);
      // stdout is the answer's: what the channels have to say (a host name that does not
      // resolve, an instance out of rotation) goes to stderr, warnings only.
      const logger = createLogger("store-admin", "warn", io.stderr === process.stderr ? pino.destination(2) : io.stderr);
      // INTERNAL_TOKEN, else the one `npm start` keeps in DATA_DIR.
      const internalToken = config.INTERNAL_TOKEN ?? keptInternalToken(config.DATA_DIR);
      channels = {
        // Every call is the operator's (docs/cli.md, docs/team.md#who-acts).
        catalog: createRpcChannel(config.CATALOG_ADDR, { timeoutMs: 10_000, actor: OPERATOR, logger, internalToken, transport: config.RPC_TRANSPORT }),
        order: createRpcChannel(config.ORDER_ADDR, { timeoutMs: 10_000, actor: OPERATOR, logger, internalToken, transport: config.RPC_TRANSPORT }),
        webhook: createRpcChannel(config.WEBHOOK_ADDR, { timeoutMs: 10_000, actor: OPERATOR, logger, internalToken, transport: config.RPC_TRANSPORT }),
        // GATEWAY_URL, else where `npm start` listens (platform/gateway-address.ts).
        gatewayUrl: clientGatewayUrl(io.env, config),
        publicBaseUrl: config.PUBLIC_BASE_URL,
        addrs: { catalog: config.CATALOG_ADDR, order: config.ORDER_ADDR, webhook: config.WEBHOOK_ADDR },
      };
      const result = await run(commandLine.command, commandLine.values, channels, io);
      if (result instanceof Listening) {
        closeAll();
        // Until Ctrl-C (or a SIGTERM): then the receiver closes and the exit is 0.
        await Promise.race([once(process, "SIGINT"), once(process, "SIGTERM")]);
        await result.close();
      } else if (result instanceof StreamedOutput) {
        for await (const chunk of result.chunks) {
          if (!io.stdout.write(chunk)) await once(io.stdout, "drain");
        }
      } else {
        io.stdout.write(JSON.stringify(result, null, 2) + "\n");
      }
      closeAll();
    }
    return 0;
  } catch (error) {
    closeAll();
    if (error instanceof Unhealthy) {
      // The report is the answer either way: print it, and say so on stderr with exit 1.
      io.stdout.write(JSON.stringify(error.report, null, 2) + "\n");
      io.stderr.write(`store-admin: ${error.message}\n`);
    } else if (error instanceof UsageError) {
      // One line naming what was wrong and where the command's usage is; no command at all: the usage.
      io.stderr.write(usageErrorText(error, commandLine?.kind === "run" ? commandLine.command : undefined));
    } else if (error instanceof StatementError || error instanceof ImportInterrupted) {
      io.stderr.write(`store-admin: ${error.message}\n`);
    } else if (error instanceof ConnectError) {
      io.stderr.write(`store-admin: ${error.rawMessage} (${codeName(error)})\n`);
    } else {
      io.stderr.write(`store-admin: ${(error as Error).message}\n`);
    }
    return 1;
  }
}

/**
 * Whether this module is the program node was started with: cli/store-admin.js (which
 * loads this file through tsx), `npx store-admin` (a link to it) or the built
 * dist/cli/store-admin.js. The same path but for its extension.
 */
function isProgram(): boolean {
  const started = process.argv[1];
  if (!started) return false;
  const stem = (file: string) => file.replace(/\.[jt]s$/, "");
  let file = path.resolve(started);
  try {
    file = realpathSync(file);
  } catch {
    // Named without its extension (node dist/cli/store-admin): the path as given.
  }
  return stem(file) === stem(fileURLToPath(import.meta.url));
}

// Imported (a test running the CLI in its own process), nothing runs until main is called.
if (isProgram()) process.exitCode = await main(process.argv.slice(2));

function codeName(error: ConnectError): string {
  return Code[error.code] ?? String(error.code);
}
