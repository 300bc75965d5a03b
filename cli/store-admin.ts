// store-admin: the operator CLI (CONTRACT §8). JSON on stdout; errors on stderr, exit 1.
import { parseArgs } from "node:util";
import { Code, ConnectError } from "@connectrpc/connect";
import { CatalogService, StoreService } from "../gen/catalog/v1/catalog_pb.js";
import { OrderService } from "../gen/order/v1/order_pb.js";
import { WebhookService, type Delivery } from "../gen/webhook/v1/webhook_pb.js";
import { Health, HealthCheckResponse_ServingStatus as ServingStatus } from "../gen/grpc/health/v1/health_pb.js";
import { orderJson } from "../common/public-json.js";
import { loadConfig } from "../services/lib/config.js";
import { textProblem } from "../common/text.js";
import { createRpcChannel, type RpcChannel } from "../services/lib/rpc-client.js";
import { apiKeyJson, apiKeyListJson, itemJson, planFromName, statusFromName, storeJson } from "./catalog-json.js";
import { seedDemoStore } from "./seed.js";

class UsageError extends Error {}

const USAGE = `usage: store-admin <command> [options]

  store create --name N [--plan starter|growth|scale] [--bank-name N --bank-code C --account-number A --account-holder H]
  store set-plan --store ID --plan P
  key create --store ID [--name N]
  key revoke --store ID --key ID
  key list --store ID         every key: name, prefix, created, last used, revoked (never the key)
  product create --store ID --title T --price N [--slug S] [--status published|draft]
  bundle create --store ID --title T --price N --product ID [--product ID ...] [--status ...]
  webhook set --store ID --url URL
  webhook rotate --store ID
  webhook deliveries --store ID [--order ID]
  webhook redeliver --store ID --delivery ID
  order mark-paid --store ID --order ID
  order cancel --store ID --order ID
  seed
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
  product: { type: "string", multiple: true },
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

function plan(text: string) {
  const value = planFromName(text);
  if (value === undefined) throw new UsageError("--plan must be starter, growth or scale");
  return value;
}

function itemStatus(values: Values) {
  if (values.status === undefined) return statusFromName("published")!;
  const value = statusFromName(values.status);
  if (value === undefined) throw new UsageError("--status must be draft, published or archived");
  return value;
}

interface Channels {
  catalog: RpcChannel;
  order: RpcChannel;
  webhook: RpcChannel;
  gatewayUrl: string;
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

function deliveryJson(d: Delivery) {
  return {
    id: d.id,
    event_id: d.eventId,
    event_type: d.eventType,
    order_id: d.orderId || null,
    status: d.status,
    attempts_made: d.attemptsMade,
    next_attempt_at: d.nextAttemptAt || null,
    created_at: d.createdAt,
    attempts: d.attempts.map((a) => ({
      number: a.number,
      started_at: a.startedAt,
      status_code: a.statusCode || null,
      latency_ms: a.latencyMs,
      result: a.result,
      error: a.error || null,
      response_excerpt: a.responseExcerpt || null,
    })),
  };
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

  switch (command) {
    case "store create": {
      const bankFields = [values["bank-name"], values["bank-code"], values["account-number"], values["account-holder"]];
      const someBank = bankFields.some((value) => value !== undefined);
      if (someBank && !bankFields.every((value) => value !== undefined)) {
        throw new UsageError("a bank account needs --bank-name, --bank-code, --account-number and --account-holder");
      }
      const { store } = await stores.createStore({
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
      return storeJson(store!);
    }
    case "store set-plan": {
      const { store } = await stores.setStorePlan({ storeId: required(values, "store"), plan: plan(required(values, "plan")) });
      return storeJson(store!);
    }
    case "key create": {
      const created = await stores.createApiKey({ storeId: required(values, "store"), name: values.name ?? "" });
      return { id: created.apiKey!.id, key: created.secret };
    }
    case "key list": {
      const { apiKeys } = await stores.listApiKeys({ storeId: required(values, "store") });
      return { keys: apiKeys.map(apiKeyListJson) };
    }
    case "key revoke": {
      const { apiKey } = await stores.revokeApiKey({ storeId: required(values, "store"), keyId: required(values, "key") });
      return apiKeyJson(apiKey!);
    }
    case "product create": {
      const { item } = await items.createProduct({
        storeId: required(values, "store"),
        title: required(values, "title"),
        price: price(values),
        slug: values.slug ?? "",
        status: itemStatus(values),
      });
      return itemJson(item!);
    }
    case "bundle create": {
      if (!values.product || values.product.length === 0) throw new UsageError("--product is required (one or more)");
      const { item } = await items.createBundle({
        storeId: required(values, "store"),
        title: required(values, "title"),
        price: price(values),
        slug: values.slug ?? "",
        status: itemStatus(values),
        productIds: values.product,
      });
      return itemJson(item!);
    }
    case "webhook set": {
      const { endpoint, secret } = await webhooks.setEndpoint({ storeId: required(values, "store"), url: required(values, "url") });
      return { id: endpoint!.id, url: endpoint!.url, secret };
    }
    case "webhook rotate": {
      const rotated = await webhooks.rotateSecret({ storeId: required(values, "store") });
      return {
        id: rotated.endpoint!.id,
        url: rotated.endpoint!.url,
        secret: rotated.secret,
        previous_secret_expires_at: rotated.previousSecretExpiresAt,
      };
    }
    case "webhook deliveries": {
      const { deliveries } = await webhooks.listDeliveries({ storeId: required(values, "store"), orderId: values.order ?? "" });
      return { items: deliveries.map(deliveryJson) };
    }
    case "webhook redeliver": {
      const { delivery } = await webhooks.redeliver({ storeId: required(values, "store"), deliveryId: required(values, "delivery") });
      return deliveryJson(delivery!);
    }
    case "order mark-paid": {
      const { order } = await orders.markOrderPaid({ storeId: required(values, "store"), orderId: required(values, "order") });
      return orderJson(order!);
    }
    case "order cancel": {
      const { order } = await orders.cancelOrder({ storeId: required(values, "store"), orderId: required(values, "order") });
      return orderJson(order!);
    }
    case "status":
      return status(channels);
    case "seed":
      return seedDemoStore({ store: stores, catalog: items });
    default:
      throw new UsageError(`unknown command: ${command}`);
  }
}

let channels: Channels | undefined;
const closeAll = () => {
  channels?.catalog.close();
  channels?.order.close();
  channels?.webhook.close();
};
try {
  const config = loadConfig();
  channels = {
    catalog: createRpcChannel(config.CATALOG_ADDR, { timeoutMs: 10_000 }),
    order: createRpcChannel(config.ORDER_ADDR, { timeoutMs: 10_000 }),
    webhook: createRpcChannel(config.WEBHOOK_ADDR, { timeoutMs: 10_000 }),
    gatewayUrl: process.env.GATEWAY_URL ?? `http://127.0.0.1:${config.PORT}`,
    addrs: { catalog: config.CATALOG_ADDR, order: config.ORDER_ADDR, webhook: config.WEBHOOK_ADDR },
  };
  const result = await run(process.argv.slice(2), channels);
  process.stdout.write(JSON.stringify(result, null, 2) + "\n");
  closeAll();
} catch (error) {
  closeAll();
  if (error instanceof Unhealthy) {
    // The report is the answer either way: print it, and say so on stderr with exit 1.
    process.stdout.write(JSON.stringify(error.report, null, 2) + "\n");
    process.stderr.write(`store-admin: ${error.message}\n`);
  } else if (error instanceof UsageError) {
    process.stderr.write((error.message ? `store-admin: ${error.message}\n\n` : "") + USAGE + "\n");
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
