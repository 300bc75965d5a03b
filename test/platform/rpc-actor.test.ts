// The actor behind an RPC (docs/team.md#who-acts) over each way the roles call each other: real
// gRPC on loopback (the lean unary path) and in-process, as `npm start` wires them. The
// channel's one interceptor states it; the handler reads it and refuses what the role
// may not do with PERMISSION_DENIED.
import test from "ava";
import { Code, ConnectError, type ConnectRouter } from "@connectrpc/connect";
import { OPERATOR, type Actor } from "../../common/actor.js";
import { OrderService } from "../../gen/order/v1/order_pb.js";
import { actingAs, currentActor } from "../../platform/acting-as.js";
import { createLogger } from "../../platform/logger.js";
import { actorOf, requirePermission } from "../../platform/rpc-actor.js";
import { createInProcessChannel, createRpcChannel, type RpcChannelOptions } from "../../platform/rpc-client.js";
import { startRpcServer } from "../../platform/rpc-server.js";

const logger = createLogger("test", "silent");
const support: Actor = { kind: "member", memberId: "1b0c1c8e-5b7a-4a43-9c57-6f3d8e2a9b01", role: "support", email: "ani@toko.example" };
const viewer: Actor = { ...support, role: "viewer", email: "budi@toko.example" };

// Reads answer who asked; a change needs the payments permission.
const routes = (router: ConnectRouter) =>
  router.service(OrderService, {
    async getOrder(_request, context) {
      const actor = actorOf(context);
      return { detail: { order: { id: actor.kind === "member" ? `${actor.role}:${actor.email}` : actor.kind } } };
    },
    async markOrderPaid(_request, context) {
      const actor = requirePermission(context, "payments");
      return { order: { id: actor.kind } };
    },
  });

const server = await startRpcServer({ name: "actor-test", host: "127.0.0.1", port: 0, logger, routes, services: [OrderService.typeName], ready: async () => {} });
test.after.always(() => server.close(100));

const channels = {
  grpc: (options: RpcChannelOptions) => createRpcChannel(`http://127.0.0.1:${server.port}`, options),
  "in-process": (options: RpcChannelOptions) => createInProcessChannel(server.inProcess, options),
};

for (const [name, open] of Object.entries(channels)) {
  test(`${name}: a fixed actor (the CLI's operator) reaches the handler`, async (t) => {
    const channel = open({ actor: OPERATOR });
    t.teardown(() => channel.close());
    const orders = channel.client(OrderService);
    t.is((await orders.getOrder({})).detail!.order!.id, "operator");
    t.is((await orders.markOrderPaid({})).order!.id, "operator");
  });

  test(`${name}: the gateway's actor is whoever the request under way acts for`, async (t) => {
    const channel = open({ actor: currentActor });
    t.teardown(() => channel.close());
    const orders = channel.client(OrderService);
    const [a, b] = await Promise.all([
      actingAs(support, () => orders.getOrder({})),
      actingAs(viewer, () => orders.getOrder({})),
    ]);
    t.is(a.detail!.order!.id, "support:ani@toko.example");
    t.is(b.detail!.order!.id, "viewer:budi@toko.example");
    t.is((await actingAs(support, () => orders.markOrderPaid({}))).order!.id, "member");
    const refused = await t.throwsAsync(actingAs(viewer, () => orders.markOrderPaid({})));
    t.is(ConnectError.from(refused).code, Code.PermissionDenied);
    t.regex(ConnectError.from(refused).rawMessage, /the viewer role may not mark orders paid/);
  });

  test(`${name}: a request that says nobody acts is refused`, async (t) => {
    const channel = open({});
    t.teardown(() => channel.close());
    const refused = await t.throwsAsync(channel.client(OrderService).markOrderPaid({}));
    t.is(ConnectError.from(refused).code, Code.PermissionDenied);
  });
}
