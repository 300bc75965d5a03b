// Exit 0 when the service at the given address reports SERVING over gRPC health, else 1.
// Used by container healthchecks: `node --import tsx cli/healthcheck.ts http://127.0.0.1:50051`.
import { Health, HealthCheckResponse_ServingStatus as ServingStatus } from "../gen/grpc/health/v1/health_pb.js";
import { createRpcChannel } from "../services/lib/rpc-client.js";

const target = process.argv[2];
if (!target) {
  process.stderr.write("usage: healthcheck <http://host:port>\n");
  process.exit(1);
}
const channel = createRpcChannel(target, { timeoutMs: 2_000 });
try {
  const answer = await channel.client(Health).check({ service: "" });
  process.stdout.write(`${ServingStatus[answer.status]}\n`);
  process.exitCode = answer.status === ServingStatus.SERVING ? 0 : 1;
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exitCode = 1;
} finally {
  channel.close();
}
