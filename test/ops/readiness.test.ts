// /readyz while NATS is down (docs/operations.md#health: a 503 names each failing check):
// the 503 names `nats`, whether the gateway's probe never reached NATS or lost an
// established connection, and /readyz is 200 again once NATS is back. Each test stops
// and starts a private nats-server of its own, never the shared one on 4222.
import test from "ava";
import { api, waitFor, type ApiResponse } from "../helpers/http.js";
import { startPrivateNats } from "../helpers/nats.js";
import { startStack } from "../helpers/stack.js";
import { createNatsProbe } from "../../gateway/nats-probe.js";

type Detail = { field: string; message: string };

test("the NATS probe fails within about a second while NATS is down, and passes again once it is back", async (t) => {
  const nats = await startPrivateNats();
  const probe = createNatsProbe(nats.url);
  try {
    await t.notThrowsAsync(probe.check());
    await nats.stop();
    for (let n = 0; n < 3; n++) {
      const started = Date.now();
      await t.throwsAsync(probe.check(), undefined, `check ${n + 1} while NATS is down`);
      t.true(Date.now() - started < 2_500, `failed within 2.5 s (took ${Date.now() - started} ms)`);
    }
    await nats.start();
    await waitFor(() => probe.check().then(() => true, () => false), 10_000, 100);
    await t.notThrowsAsync(probe.check());
  } finally {
    await probe.close();
    await nats.close();
  }
});

test("a probe made while NATS is down fails, then passes once NATS starts", async (t) => {
  const nats = await startPrivateNats();
  await nats.stop();
  const probe = createNatsProbe(nats.url);
  try {
    await t.throwsAsync(probe.check());
    await nats.start();
    await waitFor(() => probe.check().then(() => true, () => false), 10_000, 100);
    await t.notThrowsAsync(probe.check());
  } finally {
    await probe.close();
    await nats.close();
  }
});

test("/readyz names nats while NATS is down (before and after the gateway first reached it), and is 200 once it is back", async (t) => {
  t.timeout(90_000);
  const nats = await startPrivateNats();
  const stack = await startStack({ webhooks: { bus: "nats", natsUrl: nats.url } });
  const ready = () => api(stack.baseUrl, "/readyz", { signal: AbortSignal.timeout(10_000) });
  const readyAgain = async (what: string) => {
    let last: ApiResponse | undefined;
    await waitFor(async () => (last = await ready().catch(() => undefined))?.status === 200, 15_000, 200).catch(() => {});
    t.is(last?.status, 200, `${what}: ${last?.text}`);
    t.is(last?.body?.data?.checks?.nats, "ok");
  };
  const namesNats = (response: ApiResponse, what: string) => {
    t.is(response.status, 503, `${what}: ${response.text}`);
    t.is(response.body?.error?.code, "SERVICE_UNAVAILABLE");
    t.truthy(response.headers.get("retry-after"));
    const details: Detail[] = response.body?.error?.details ?? [];
    t.deepEqual(details.find((detail) => detail.field === "nats"), { field: "nats", message: "unavailable" }, `${what}: ${response.text}`);
    t.false(details.some((detail) => detail.field === "database"), "the database is up");
  };
  try {
    // 1. NATS goes before the gateway's first readiness check: its probe never connected.
    await nats.stop();
    namesNats(await ready(), "NATS down before the first /readyz");
    await nats.start();
    await readyAgain("NATS back");

    // 2. Now the probe holds a connection, and NATS goes away under it.
    await nats.stop();
    namesNats(await ready(), "NATS down under an established connection");
    namesNats(await ready(), "and still, on the next check");
    await nats.start();
    await readyAgain("NATS back again");
  } finally {
    if (!nats.running) await nats.start().catch(() => {});
    await stack.close();
    await nats.close();
  }
});
