import { AccountService } from "../gen/catalog/v1/account_pb.js";
import { CatalogService, StoreService } from "../gen/catalog/v1/catalog_pb.js";
import { WebhookService } from "../gen/webhook/v1/webhook_pb.js";
import { Health } from "../gen/grpc/health/v1/health_pb.js";
import { BankReconciliationService } from "../gen/order/v1/bank_pb.js";
import { OrderService } from "../gen/order/v1/order_pb.js";
import { currentActor } from "../platform/acting-as.js";
import { openRpcChannel, type RpcChannelOptions, type RpcTransport } from "../platform/rpc-client.js";
import type { InProcessTarget } from "../platform/rpc-server.js";
import type { Logger } from "../platform/logger.js";

/** Services running in this process, called without a socket (`npm start`). */
export type InProcessServices = Partial<Record<"catalog" | "order" | "webhook", InProcessTarget>>;

/**
 * One gRPC channel per internal service. Calls carry a deadline so a stuck service
 * turns into a 503 instead of a hung request; order calls get longer, since creating
 * an order may wait on the payment gateway. A service given in `inProcess` is called
 * in this process with the same deadlines and interceptors instead of over gRPC.
 */
export function createServiceClients(
  addrs: { catalog: string; order: string; webhook?: string },
  timeoutMs = 1_200,
  inProcess: InProcessServices = {},
  logger?: Logger,
  /** INTERNAL_TOKEN, carried by every call. */
  internalToken?: string,
  /** RPC_TRANSPORT, for the services called over gRPC. */
  transport?: RpcTransport,
) {
  // Each call states the actor of the request under way: the API key, or the signed-in member.
  const options = (deadline: number): RpcChannelOptions => ({ timeoutMs: deadline, actor: currentActor, role: "gateway", logger, internalToken, transport });
  const catalogChannel = openRpcChannel(inProcess.catalog ?? addrs.catalog, options(timeoutMs));
  const orderChannel = openRpcChannel(inProcess.order ?? addrs.order, options(Math.max(timeoutMs, 10_000)));
  // The API asks the webhook service only whether it is up (/readyz); the dashboard
  // manages endpoints and deliveries through it.
  const webhookTarget = inProcess.webhook ?? addrs.webhook;
  const webhookChannel = webhookTarget ? openRpcChannel(webhookTarget, options(timeoutMs)) : undefined;
  return {
    store: catalogChannel.client(StoreService),
    catalog: catalogChannel.client(CatalogService),
    order: orderChannel.client(OrderService),
    bank: orderChannel.client(BankReconciliationService),
    accounts: catalogChannel.client(AccountService),
    webhook: webhookChannel?.client(WebhookService),
    health: {
      catalog: catalogChannel.client(Health),
      order: orderChannel.client(Health),
      ...(webhookChannel ? { webhook: webhookChannel.client(Health) } : {}),
    },
    close() {
      catalogChannel.close();
      orderChannel.close();
      webhookChannel?.close();
    },
  };
}

export type ServiceClients = ReturnType<typeof createServiceClients>;
