// Capacity: how many orders a day one box carries with every answer's p99 under 100 ms.
//
// An order's life is modelled as what the API sees of it: the order created, read back
// three times (the merchant's system and the buyer's checkout page polling), five
// catalog pages read around it, and the order paid a second later: three signed
// webhooks (order.created, then order.updated and order.paid) to a healthy receiver. Orders arrive at a
// steady rate, raised step by step until the HTTP p99 passes 100 ms, an answer fails,
// or webhooks fall behind (p99 from commit to receipt over a second).
import http from "node:http";

/** What the API sees of one order (besides its two webhooks). */
export const ORDER_LIFE = { creates: 1, orderReads: 3, catalogReads: 5 } as const;
export const REQUESTS_PER_ORDER = ORDER_LIFE.creates + ORDER_LIFE.orderReads + ORDER_LIFE.catalogReads;
/** order.created when made; order.updated and order.paid when paid (docs/orders.md#events). */
export const WEBHOOKS_PER_ORDER = 3;
/** The busiest hour carries this many times an average hour's orders (assumed; see bench/README.md). */
export const PEAK_TO_AVERAGE = 3;
export const P99_LIMIT_MS = 100;
export const WEBHOOK_LAG_LIMIT_MS = 1_000;

export interface CapacityStep {
  ordersPerSecond: number;
  orders: number;
  requests: number;
  p50: number;
  p99: number;
  failures: number;
  webhooks: number;
  webhookP99: number;
  within: boolean;
}

export interface CapacityDeps {
  url: string;
  auth: Record<string, string>;
  orderBody: () => string;
  /** The order marked paid, as a bank match or a payment notification would. */
  markPaid: (orderId: string) => Promise<void>;
  /** Webhook receipts so far: arrival time and the event body. */
  receipts: { at: number; body: string }[];
  seconds: number;
  connections: number;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

/** One HTTP request on a keep-alive agent: its status and body. */
function send(agent: http.Agent, base: URL, method: string, path: string, headers: Record<string, string>, body?: string) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = http.request({ agent, host: base.hostname, port: base.port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

/**
 * One step: `ordersPerSecond` orders' lives for `seconds`, then every webhook of them
 * received (or 30 s). Open loop: each request is sent at its scheduled time whether or
 * not earlier ones have answered, and its latency counts from then, so a slow answer
 * cannot hold back the load (autocannon's paced mode measured 30 ms p99 against a
 * bare Node server at 90 req/s, which is its pacing, not the server).
 */
export async function capacityStep(deps: CapacityDeps, ordersPerSecond: number): Promise<CapacityStep> {
  const base = new URL(deps.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: deps.connections });
  const json = { ...deps.auth, "content-type": "application/json" };
  const orderIds: string[] = [];
  const paying: Promise<void>[] = [];
  const latencies: number[] = [];
  const inFlight: Promise<void>[] = [];
  let failures = 0;
  const firstReceipt = deps.receipts.length;
  const requestsPerSecond = ordersPerSecond * REQUESTS_PER_ORDER;
  const total = Math.round(requestsPerSecond * deps.seconds);
  const started = performance.now();

  const one = async (n: number) => {
    const slot = n % REQUESTS_PER_ORDER;
    const readable = orderIds.at(-1 - (n % 8));
    const at = performance.now();
    try {
      if (slot === 0) {
        const answer = await send(agent, base, "POST", "/v1/orders", json, deps.orderBody());
        latencies.push(performance.now() - at);
        if (answer.status !== 201) return void failures++;
        const id = (JSON.parse(answer.body) as { data: { order: { id: string } } }).data.order.id;
        orderIds.push(id);
        paying.push(
          new Promise<void>((resolve) => setTimeout(resolve, 1_000)).then(() =>
            deps.markPaid(id).catch(() => {
              failures++;
            }),
          ),
        );
        return;
      }
      const path = slot <= ORDER_LIFE.orderReads && readable ? `/v1/orders/${readable}` : "/v1/products?limit=20";
      const answer = await send(agent, base, "GET", path, deps.auth);
      latencies.push(performance.now() - at);
      if (answer.status !== 200) failures++;
    } catch {
      failures++;
    }
  };

  for (let n = 0; n < total; n++) {
    const due = started + (n * 1_000) / requestsPerSecond;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    inFlight.push(one(n));
  }
  await Promise.all(inFlight);
  await Promise.all(paying);
  agent.destroy();

  // Wait for every webhook of these orders, then measure commit → receipt.
  const expected = orderIds.length * WEBHOOKS_PER_ORDER;
  const deadline = Date.now() + 30_000;
  const mine = () => deps.receipts.slice(firstReceipt);
  while (mine().length < expected && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  const lags = mine()
    .map((hit) => hit.at - Date.parse((JSON.parse(hit.body) as { data: { order: { updated_at: string } } }).data.order.updated_at))
    .sort((a, b) => a - b);
  const sorted = latencies.sort((a, b) => a - b);
  const webhookP99 = lags.length < expected ? Infinity : percentile(lags, 99);
  const p99 = Math.round(percentile(sorted, 99));
  return {
    ordersPerSecond,
    orders: orderIds.length,
    requests: latencies.length,
    p50: Math.round(percentile(sorted, 50)),
    p99,
    failures,
    webhooks: lags.length,
    webhookP99,
    within: failures === 0 && p99 <= P99_LIMIT_MS && webhookP99 <= WEBHOOK_LAG_LIMIT_MS,
  };
}

/**
 * Raises the rate (orders/s) step by step until a step fails the limits; the last step
 * within them is the capacity. Steps grow by a quarter, so the answer is within 25 %.
 */
export async function findCapacity(deps: CapacityDeps, report: (step: CapacityStep) => void, start = 10, max = 2_000) {
  // Processes just started are still compiling: one step at the first rate, not counted.
  await capacityStep(deps, start);
  const steps: CapacityStep[] = [];
  for (let rate = start; rate <= max; rate = Math.ceil(rate * 1.25)) {
    const step = await capacityStep(deps, rate);
    steps.push(step);
    report(step);
    if (!step.within) break;
  }
  const best = steps.filter((step) => step.within).at(-1);
  const perSecond = best?.ordersPerSecond ?? 0;
  return {
    steps,
    ordersPerSecond: perSecond,
    /** At that rate all day long. */
    ordersPerDayFlat: perSecond * 86_400,
    /** When the busiest hour carries PEAK_TO_AVERAGE × an average hour. */
    ordersPerDay: Math.floor((perSecond * 86_400) / PEAK_TO_AVERAGE),
  };
}
