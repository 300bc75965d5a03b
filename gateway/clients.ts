import { CatalogService, StoreService } from "../gen/catalog/v1/catalog_pb.js";
import { Health } from "../gen/grpc/health/v1/health_pb.js";
import { createRpcChannel } from "../services/lib/rpc-client.js";

/**
 * One gRPC channel per internal service. Calls carry a short deadline so a stuck
 * service turns into a 503 instead of a hung request.
 */
export function createServiceClients(addrs: { catalog: string }, timeoutMs = 1_500) {
  const catalogChannel = createRpcChannel(addrs.catalog, { timeoutMs });
  return {
    store: catalogChannel.client(StoreService),
    catalog: catalogChannel.client(CatalogService),
    health: { catalog: catalogChannel.client(Health) },
    close() {
      catalogChannel.close();
    },
  };
}

export type ServiceClients = ReturnType<typeof createServiceClients>;
