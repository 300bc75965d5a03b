import test from "ava";
import { api } from "../helpers/http.js";
import { startFakeMidtrans } from "../helpers/fake-midtrans.js";
import { SHARED_NATS_URL } from "../helpers/nats.js";
import { freePort, spawnEntry, spawnProcess } from "../helpers/process.js";
import { createServices, sleep, startHookReceiver } from "../helpers/service-processes.js";

// Every process stops on SIGTERM and SIGINT: it stops accepting, finishes what it
// has in hand, and exits 0 within 10 s (docs/operations.md#shutdown).

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  test(`every service and the gateway exit 0 on ${signal}, within 10 s`, async (t) => {
    const services = await createServices({ natsUrl: SHARED_NATS_URL });
    try {
      const started = await Promise.all((["catalog", "order", "webhook"] as const).map((name) => services.spawn(name)));
      const port = await freePort();
      const gateway = spawnEntry("gateway/main.ts", { ...services.env, PORT: String(port), NATS_URL: SHARED_NATS_URL });
      await gateway.waitFor(/gateway listening/);
      t.is((await api(`http://127.0.0.1:${port}`, "/readyz")).status, 200);
      for (const child of [gateway, ...started.reverse()]) {
        const before = Date.now();
        t.is(await child.stop(signal, 12_000), 0, child.output().slice(-500));
        t.true(Date.now() - before < 10_000);
      }
    } finally {
      await services.close();
    }
  });
}

test("the gateway finishes a request in flight when told to stop, and takes no new ones", async (t) => {
  const fake = await startFakeMidtrans({ serverKey: "SB-Mid-server-test" });
  fake.mode = "hang"; // creating the order waits for the gateway's 2 s timeout
  const services = await createServices({
    natsUrl: SHARED_NATS_URL,
    env: { PAYMENT_GATEWAY: "midtrans", MIDTRANS_BASE_URL: fake.url, MIDTRANS_SERVER_KEY: "SB-Mid-server-test", MIDTRANS_TIMEOUT: "2s" },
  });
  try {
    await services.spawn("catalog");
    await services.spawn("order");
    await services.spawn("webhook");
    const receiver = await startHookReceiver();
    const shop = await services.setUpStore(receiver.url);
    const key = (await services.stores.createApiKey({ storeId: shop.storeId })).secret;
    const port = await freePort();
    const gateway = spawnEntry("gateway/main.ts", { ...services.env, PORT: String(port) });
    await gateway.waitFor(/gateway listening/);
    const base = `http://127.0.0.1:${port}`;

    const inFlight = api(base, "/v1/orders", {
      method: "POST",
      key,
      json: { items: [{ product_id: shop.productId, quantity: 1 }], buyer: { name: "Budi", email: "budi@example.com", phone: "081234567890" }, payment_method: "qris" },
    });
    await sleep(500);
    const stopped = gateway.stop("SIGTERM", 12_000);
    await sleep(200);
    await t.throwsAsync(fetch(`${base}/healthz`), undefined, "no new connections once stopping");
    const answer = await inFlight;
    t.is(answer.status, 201, "the request in flight was answered");
    t.is(answer.body.data.payment.snap, null);
    t.is(await stopped, 0);
    await receiver.close();
  } finally {
    await services.close();
    await fake.close();
  }
});

test("the webhook service finishes a delivery in flight when told to stop", async (t) => {
  const services = await createServices({ natsUrl: SHARED_NATS_URL });
  try {
    await services.spawn("catalog");
    await services.spawn("order");
    const webhook = await services.spawn("webhook");
    let answered = 0;
    const receiver = await startHookReceiver({
      respond: async () => {
        await sleep(2_000);
        answered++;
        return { status: 200 };
      },
    });
    const shop = await services.setUpStore(receiver.url);
    await services.createOrder(shop);
    for (let waited = 0; receiver.received.length === 0 && waited < 20_000; waited += 50) await sleep(50);
    t.true(receiver.received.length > 0, "a delivery is in flight");
    t.is(await webhook.stop("SIGTERM", 12_000), 0);
    t.true(answered >= 1);
    const statuses = await services.deliveryStatuses();
    t.is(statuses.succeeded, 1, JSON.stringify(statuses));
    await receiver.close();
  } finally {
    await services.close();
  }
});

test("store-admin status reports every part, and exits 1 when one is down", async (t) => {
  const services = await createServices({ natsUrl: SHARED_NATS_URL });
  try {
    await Promise.all((["catalog", "order", "webhook"] as const).map((name) => services.spawn(name)));
    const port = await freePort();
    const gateway = spawnEntry("gateway/main.ts", { ...services.env, PORT: String(port) });
    await gateway.waitFor(/gateway listening/);
    const env = { ...services.env, GATEWAY_URL: `http://127.0.0.1:${port}` };
    const healthy = spawnProcess(process.execPath, ["cli/store-admin.js", "status"], env);
    t.is(await healthy.exited, 0, healthy.output());
    const report = JSON.parse(healthy.output());
    t.deepEqual(
      Object.fromEntries(Object.entries<any>(report).map(([name, part]) => [name, part.status])),
      { catalog: "SERVING", order: "SERVING", webhook: "SERVING", gateway: "READY" },
    );
    t.deepEqual(Object.keys(report.gateway.checks).sort(), ["catalog", "database", "nats", "order", "webhook"]);

    await services.children.find((child) => child.output().includes('"webhook listening"'))!.stop("SIGKILL");
    const degraded = spawnProcess(process.execPath, ["cli/store-admin.js", "status"], env);
    t.is(await degraded.exited, 1);
    t.regex(degraded.output(), /"webhook"[\s\S]*UNREACHABLE/);
    t.regex(degraded.output(), /"gateway"[\s\S]*NOT_READY/);
    await gateway.stop();
  } finally {
    await services.close();
  }
});
