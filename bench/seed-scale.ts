// Data at scale for the bench (`npm run bench -- --scale`): one store filled with N
// orders over the last 90 days and everything the services would have written for them
// (items, status history, outbox rows as published, payment sessions, transfer-code
// reservations, bank mutations, refunds and audit entries in the order service's
// schema; events, deliveries and attempts in the webhook service's), about three events
// per order.
//
// The store, its key, products, member and endpoint are made through the services'
// normal paths by the caller, so authentication and sessions are real. The rest is
// loaded straight into the services' tables with COPY: replaying 90 days through the
// API would take days. The bench is the one place allowed to do that, and it writes
// only what the services would: rows pass the schema's checks and keys, statuses move
// only along the status machine (services/order/status-machine.ts), event bodies are
// rendered by the order service's own functions (renderOrder, orderJson,
// orderEventPayload), totals come from the items, transfer amounts never collide with a
// held reservation, and every delivery's attempts follow the retry schedule.
import { randomBytes, randomUUID } from "node:crypto";
import { finished } from "node:stream/promises";
import postgres from "postgres";
import { OPERATOR } from "../common/actor.js";
import { auditTarget } from "../common/audit.js";
import { auditEntry } from "../platform/audit-log.js";
import { createdEvents, refundEvent, statusChangeEvents } from "../services/order/events.js";
import { renderOrder, renderRefund, type RenderContext } from "../services/order/messages.js";
import { createSandboxGateway } from "../services/order/payment-gateways/sandbox.js";
import { reservationAfter } from "../services/order/bank-matching.js";
import { BANK_MUTATION_CAUSE } from "../services/order/reconciliation.js";
import type { OrderStatus } from "../services/order/status-machine.js";
import type { OrderItemRow, OrderRow } from "../services/order/db/orders.js";
import type { RefundRow } from "../services/order/db/refunds.js";
import { newPaymentReference } from "../services/order/new-order.js";

const DAY = 86_400_000;
const HOUR = 3_600_000;
const MINUTE = 60_000;
/** The services' defaults (platform/config.ts): the payment window, the bank grace, the retry schedule. */
const PAYMENT_WINDOW_MS = DAY;
const BANK_MATCH_GRACE_MS = 7 * DAY;
const RETRY_SCHEDULE_MS = [5_000, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR];
const MAX_UNIQUE_CODE = 999;

export interface SeedProduct {
  id: string;
  type: "product" | "bundle";
  title: string;
  price: number;
}

/** What the caller made through the services, and where the product answers. */
export interface SeedTarget {
  databaseUrl: string;
  storeId: string;
  storeName: string;
  bank: { bank_name: string; bank_code: string; account_number: string; account_holder: string };
  /** Published items; one priced 0 makes the free orders. */
  products: SeedProduct[];
  endpointId: string;
  /** The endpoint's URL: a refused connection names its port. */
  endpointUrl: string;
  /** PUBLIC_BASE_URL of the product: checkout and sandbox URLs in rows and bodies carry it. */
  publicBaseUrl: string;
  /** The dashboard member who marks orders paid, cancels and refunds (the rest is the operator). */
  memberEmail: string;
}

export interface SeedCounts {
  [table: string]: number;
}

export interface SeedReport {
  orders: number;
  rows: number;
  seconds: number;
  rowsPerSecond: number;
  /** Of `seconds`, the time spent generating rows in this process. */
  generateSeconds: number;
  /** Of `seconds`, the time spent building the secondary indexes after the rows were in. */
  indexSeconds: number;
  counts: SeedCounts;
  /** Ids the scenarios read: orders of each status, a failed delivery, searchable values. */
  samples: SeedSamples;
}

export interface SeedSamples {
  /** A paid order with a few deliveries, from the middle of the 90 days. */
  paidOrderId: string;
  /** Orders whose last event is a status change (their body must equal the API's answer). */
  changedOrderIds: string[];
  /** A pending bank-transfer order (one "Mark as paid" may be asked for); absent if none is pending. */
  pendingTransferOrderId?: string;
  /** Absent when no delivery has failed for good (a small store may have none). */
  failedDeliveryId?: string;
  buyerEmail: string;
  paymentReference: string;
  externalId: string;
}

// A small deterministic generator, so two runs of one size seed the same shape.
function generator(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (low: number, high: number) => low + Math.floor(next() * (high - low + 1));
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  const weighted = <T>(entries: readonly (readonly [T, number])[]) => {
    const total = entries.reduce((sum, [, w]) => sum + w, 0);
    let r = next() * total;
    for (const [value, w] of entries) if ((r -= w) < 0) return value;
    return entries.at(-1)![0];
  };
  return { next, int, pick, weighted };
}
type Random = ReturnType<typeof generator>;

// COPY's text format: tab-separated, \N for null, backslash escapes.
function field(value: unknown): string {
  if (value === null || value === undefined) return "\\N";
  if (value instanceof Escaped) return value.text;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "string") return /[\\\t\n\r]/.test(value) ? value.replace(/\\/g, "\\\\").replace(/\t/g, "\\t").replace(/\n/g, "\\n").replace(/\r/g, "\\r") : value;
  // Numbers, bigints and booleans: what the seed writes besides strings and dates.
  if (typeof value === "number" || typeof value === "bigint" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}
function line(values: unknown[]): string {
  let text = field(values[0]);
  for (let i = 1; i < values.length; i++) text += "\t" + field(values[i]);
  return text + "\n";
}

/**
 * A JSON body escaped for COPY once, though it goes into three tables: JSON.stringify
 * never leaves a raw tab or line break, so only backslashes need doubling.
 */
class Escaped {
  readonly text: string;
  constructor(json: string) {
    this.text = json.includes("\\") ? json.replace(/\\/g, "\\\\") : json;
  }
}

/** A time in ms with a fraction, to the microsecond as PostgreSQL keeps it. */
let lastSecond = NaN;
let lastPrefix = "";
function micros(ms: number): string {
  const second = Math.floor(ms / 1000);
  // Most times written together fall in one second: its text is made once.
  if (second !== lastSecond) {
    lastSecond = second;
    lastPrefix = new Date(second * 1000).toISOString().slice(0, 20);
  }
  const fraction = Math.floor((ms - second * 1000) * 1000);
  return `${lastPrefix}${String(fraction).padStart(6, "0")}Z`;
}
/** What a row holds for a clock_timestamp() taken then (a Date read back keeps the milliseconds). */
const readBack = (ms: number) => new Date(Math.floor(ms));

/** Orders per hour of the day in Jakarta (UTC+7): quiet nights, a lunch bump, busy evenings. */
const HOUR_WEIGHTS_WIB = [3, 2, 1, 1, 1, 1, 2, 3, 4, 5, 6, 7, 8, 7, 6, 6, 6, 7, 8, 10, 11, 10, 7, 5];

const FIRST_NAMES = ["Budi", "Siti", "Agus", "Dewi", "Rina", "Andi", "Putri", "Rizky", "Wahyu", "Sri", "Ayu", "Dian", "Eko", "Fitri", "Hendra", "Indah", "Joko", "Kartika", "Lestari", "Made", "Nur", "Oka", "Purnama", "Rahmat", "Sari", "Teguh", "Utami", "Wulan", "Yusuf", "Zahra"];
const LAST_NAMES = ["Santoso", "Wijaya", "Saputra", "Lestari", "Pratama", "Hidayat", "Kusuma", "Nugroho", "Setiawan", "Rahayu", "Siregar", "Nasution", "Simanjuntak", "Gunawan", "Halim", "Sutanto", "Permana", "Wibowo", "Susanto", "Hakim"];
const MAIL_HOSTS = ["gmail.com", "yahoo.co.id", "outlook.com", "gmail.com", "gmail.com", "ymail.com"];
const REFUND_REASONS = ["Barang habis", "Pembeli membatalkan", "Salah kirim", "Produk rusak"];

interface Buyer {
  name: string;
  email: string;
  phone: string;
}

function buyers(random: Random, count: number): Buyer[] {
  return Array.from({ length: count }, (_, n) => {
    const first = random.pick(FIRST_NAMES);
    const last = random.pick(LAST_NAMES);
    return {
      name: `${first} ${last}`,
      email: `${first}.${last}${n}@${random.pick(MAIL_HOSTS)}`.toLowerCase(),
      phone: `+628${random.int(11, 59)}${String(random.int(0, 99_999_999)).padStart(8, "0")}`,
    };
  });
}

/** One status change of an order's life: what it became, why, and when (ms, with a fraction). */
interface Change {
  to: OrderStatus;
  cause: string;
  at: number;
  detail?: string;
  /** Who a person's change is audited as. */
  audit?: { actor: string; action: "order.marked_paid" | "order.cancelled" | "order.refunded" };
  /** A refund settled with this change. */
  refund?: boolean;
}

type Kind = "none" | "bank_transfer" | "gateway";

const GATEWAY_WEIGHTS = [
  ["qris", 40],
  ["gopay", 14],
  ["shopeepay", 10],
  ["bca_va", 15],
  ["bni_va", 5],
  ["bri_va", 8],
  ["permata_va", 2],
  ["credit_card", 6],
] as const;

/** The tables written, in dependency order within a batch, with their columns. */
const COLUMNS = {
  "orders.orders": [
    "id", "store_id", "status", "payment_reference", "payment_kind", "payment_method", "payment_provider", "settlement_channel",
    "subtotal", "unique_amount_code", "amount", "currency", "buyer_name", "buyer_email", "buyer_phone", "bank_name", "bank_code",
    "account_number", "account_holder", "store_name", "success_url", "return_url", "error_url", "external_id", "expires_at",
    "created_at", "updated_at", "refunded_amount", "next_status_check_at", "status_checks", "gateway_expire_at", "paid_at",
  ],
  "orders.order_items": ["order_id", "position", "type", "item_id", "title", "quantity", "unit_price", "line_total"],
  "orders.order_status_history": ["order_id", "from_status", "to_status", "cause", "detail", "created_at"],
  "orders.outbox": ["id", "store_id", "order_id", "event_type", "payload", "created_at", "published_at"],
  "orders.payment_sessions": ["id", "order_id", "provider", "token", "redirect_url", "expires_at", "created_at"],
  "orders.refunds": ["id", "store_id", "order_id", "amount", "reason", "status", "method", "attempts", "created_at", "updated_at"],
  "orders.bank_mutations": ["store_id", "mutation_id", "amount", "type", "occurred_at", "description", "status", "reason", "order_id", "received_at", "request_position"],
  "orders.audit_log": ["store_id", "created_at", "actor", "action", "target", "target_label"],
  "webhooks.events": ["id", "store_id", "type", "order_id", "body", "created_at"],
  "webhooks.deliveries": ["id", "endpoint_id", "store_id", "event_id", "event_type", "order_id", "body", "status", "attempts", "next_attempt_at", "last_error", "created_at", "updated_at", "kind"],
  "webhooks.delivery_attempts": ["delivery_id", "number", "started_at", "status_code", "latency_ms", "result", "error", "response_excerpt"],
} as const;
type Table = keyof typeof COLUMNS;

/** A batch's rows as COPY text, table by table. */
type Batch = Record<Table, string[]>;
const emptyBatch = (): Batch => Object.fromEntries(Object.keys(COLUMNS).map((table) => [table, []])) as unknown as Batch;

/**
 * The seeder of one store. `history()` writes the 90 days; `pendingBurst()` then adds
 * orders that all expire at one moment (the expiry scenario).
 */
export function createSeeder(target: SeedTarget, options: { seed?: number; batchOrders?: number; log?: (text: string) => void } = {}) {
  const random = generator(options.seed ?? 20_261_124);
  const batchOrders = options.batchOrders ?? 5_000;
  const log = options.log ?? (() => {});
  const sandbox = createSandboxGateway({ publicBaseUrl: target.publicBaseUrl, clientKey: "sandbox-client-key" });
  const render: RenderContext = { publicBaseUrl: target.publicBaseUrl, gateway: sandbox, testGateway: sandbox };
  const sql = postgres(target.databaseUrl, { max: 12, onnotice: () => {}, connection: { application_name: "bench-seed-scale", synchronous_commit: "off" } });
  const paid = target.products.filter((p) => p.price > 0);
  const plainProducts = paid.filter((p) => p.type === "product");
  const bundles = paid.filter((p) => p.type === "bundle");
  const free = target.products.find((p) => p.price === 0);
  const receiverPort = new URL(target.endpointUrl).port;
  /** Each transfer amount of the store: its last holder's order and until when (infinity while pending). */
  const reservations = new Map<number, { orderId: string; until: number }>();
  let mutationSeq = 0;
  let externalSeq = 0;

  async function copy(table: Table, rows: string[]) {
    if (rows.length === 0) return;
    const writable = await sql.unsafe(`copy ${table} (${COLUMNS[table].join(", ")}) from stdin`).writable();
    // Chunks of a few thousand lines, waiting whenever the socket is full.
    for (let i = 0; i < rows.length; i += 2_000) {
      if (!writable.write(rows.slice(i, i + 2_000).join(""))) await new Promise((resolve) => writable.once("drain", resolve));
    }
    writable.end();
    await finished(writable);
  }

  /** Orders first (everything else points at them), attempts last (they point at deliveries). */
  async function load(batch: Batch) {
    await copy("orders.orders", batch["orders.orders"]);
    await Promise.all(
      (Object.keys(COLUMNS) as Table[]).filter((table) => table !== "orders.orders" && table !== "webhooks.delivery_attempts").map((table) => copy(table, batch[table])),
    );
    await copy("webhooks.delivery_attempts", batch["webhooks.delivery_attempts"]);
  }

  /** A free code for `subtotal` at `at`: one no reservation holds (strictly, as insertNewOrder's upsert allows). */
  function uniqueCode(subtotal: number, at: number): number | undefined {
    const start = random.int(1, MAX_UNIQUE_CODE);
    for (let k = 0; k < MAX_UNIQUE_CODE; k++) {
      const code = ((start + k - 1) % MAX_UNIQUE_CODE) + 1;
      const held = reservations.get(subtotal + code);
      if (!held || held.until < at) return code;
    }
    return undefined;
  }

  /** Each failing stretch of the receiver: down (refused) from `from` for `ms`. */
  const outages = (now: number) => [
    { from: now - 61 * DAY + 3 * HOUR, ms: 5 * HOUR },
    { from: now - 23 * DAY + 14 * HOUR, ms: 2 * HOUR },
    { from: now - 6 * HOUR, ms: 40 * MINUTE },
  ];

  /**
   * A delivery's attempts on the retry schedule (with its 10 % jitter) up to `now`: a
   * poisoned one is refused every time (the receiver answers 422 to that body), one in
   * an outage fails until the receiver is back, one in 30 fails once by chance. Ends
   * succeeded, failed after the schedule's last step, or pending with its next attempt due.
   */
  function deliver(createdAt: number, now: number, down: { from: number; ms: number }[], poisoned: boolean) {
    const attempts: { number: number; started: number; code: number | null; latency: number; result: string; error: string | null; excerpt: string | null }[] = [];
    const flaky = random.next() < 1 / 30;
    let at = createdAt + random.int(3, 40) + random.next();
    let lastError: string | null = null;
    let updated = createdAt;
    for (let number = 1; ; number++) {
      if (at > now) return { status: "pending" as const, attempts, next: at, error: lastError, updated };
      const isDown = down.some((o) => at >= o.from && at < o.from + o.ms);
      const attempt = isDown
        ? { code: null, latency: random.int(1, 4), result: "network_error", error: `connect ECONNREFUSED 127.0.0.1:${receiverPort}`, excerpt: null }
        : poisoned
          ? { code: 422, latency: random.int(8, 60), result: "http_error", error: null, excerpt: '{"error":"unprocessable"}' }
          : flaky && number === 1
            ? random.next() < 0.5
              ? { code: null, latency: 15_000, result: "timeout", error: "no complete answer within 15000 ms", excerpt: null }
              : { code: 503, latency: random.int(5, 90), result: "http_error", error: null, excerpt: "Service Unavailable" }
            : { code: 200, latency: random.int(4, 180), result: "succeeded", error: null, excerpt: "" };
      attempts.push({ number, started: at, ...attempt });
      updated = at + attempt.latency;
      // Each lease moved next_attempt_at one step on; a success keeps it (recordAttempt).
      if (attempt.result === "succeeded") return { status: "succeeded" as const, attempts, next: at + (RETRY_SCHEDULE_MS[number - 1] ?? 30_000), error: null, updated };
      lastError = attempt.error ?? `HTTP ${attempt.code}`;
      const step = RETRY_SCHEDULE_MS[number - 1];
      if (step === undefined) return { status: "failed" as const, attempts, next: at + 30_000, error: lastError, updated };
      at = updated + Math.round(step * (1 + random.next() * 0.1));
    }
  }

  /**
   * One order's life, written into `batch`: created at `createdAt`, then the changes in
   * `plan` that happened by `now`. Returns the order's row as it ends.
   */
  function writeOrder(batch: Batch, order: { createdAt: number; kind: Kind; method: string; plan: () => Change[] }, now: number, state: { down: { from: number; ms: number }[]; counts: SeedCounts; onFailedDelivery?: (id: string) => void }) {
    const { createdAt, kind } = order;
    const id = randomUUID();
    // Items: 1–3 lines of distinct products (sometimes the bundle); a free order is the free product once.
    const lines: SeedProduct[] = [];
    if (kind === "none") lines.push(free!);
    else {
      const count = 1 + (random.next() < 0.35 ? 1 : 0) + (random.next() < 0.1 ? 1 : 0);
      while (lines.length < count) {
        const product = bundles.length > 0 && random.next() < 0.06 ? random.pick(bundles) : random.pick(plainProducts);
        if (!lines.includes(product)) lines.push(product);
      }
    }
    const items: OrderItemRow[] = lines.map((product, position) => {
      const quantity = kind === "none" ? 1 : random.weighted([[1, 70], [2, 20], [3, 6], [4, 2], [5, 2]] as const);
      return { order_id: id, position, type: product.type, item_id: product.id, title: product.title, quantity, unit_price: product.price, line_total: product.price * quantity };
    });
    const subtotal = items.reduce((sum, item) => sum + item.line_total, 0);
    let code: number | null = null;
    if (kind === "bank_transfer") {
      code = uniqueCode(subtotal, createdAt) ?? null;
      // Every code of this subtotal held (the service answers CONFLICT): this order is a QRIS one instead.
      if (code === null) return writeOrder(batch, { ...order, kind: "gateway", method: "qris" }, now, state);
    }
    const buyer = pickBuyer();
    const checkout = `${target.publicBaseUrl}/checkout/${id}`;
    const method = kind === "none" ? "none" : order.method;
    let row: OrderRow = {
      id,
      store_id: target.storeId,
      livemode: true,
      status: "pending",
      payment_reference: newPaymentReference(randomBytes(12)),
      payment_kind: kind,
      payment_method: method,
      payment_provider: kind === "none" ? "none" : kind === "bank_transfer" ? "manual" : "sandbox",
      settlement_channel: kind === "none" ? "none" : kind === "bank_transfer" ? "seller_bank" : "gateway",
      subtotal,
      unique_amount_code: code,
      amount: subtotal + (code ?? 0),
      currency: "IDR",
      buyer_name: buyer.name,
      buyer_email: buyer.email,
      buyer_phone: buyer.phone,
      bank_name: kind === "bank_transfer" ? target.bank.bank_name : null,
      bank_code: kind === "bank_transfer" ? target.bank.bank_code : null,
      account_number: kind === "bank_transfer" ? target.bank.account_number : null,
      account_holder: kind === "bank_transfer" ? target.bank.account_holder : null,
      store_name: target.storeName,
      success_url: checkout,
      return_url: checkout,
      error_url: checkout,
      external_id: random.next() < 0.6 ? `INV-${String(++externalSeq).padStart(9, "0")}` : null,
      // The service's clock reading is a JS Date: milliseconds.
      expires_at: new Date(createdAt + PAYMENT_WINDOW_MS),
      created_at: new Date(createdAt),
      updated_at: new Date(createdAt),
      refunded_amount: 0,
      // The sandbox has no status API, so the service schedules no checks (domain.ts asksGateway).
      next_status_check_at: null,
      status_checks: 0,
      gateway_expire_at: null,
      paid_at: null,
      metadata: {},
      holds_stock: false,
    };
    const history: string[] = [line([id, null, "pending", "created", null, micros(createdAt + 0.3)])];
    /** Outbox rows in the order written, each with its time (ms with a fraction) and body. */
    const events: { id: string; type: string; at: number; body: Escaped }[] = [];
    const emit = (at: number, rows: { id: string; event_type: string; payload: unknown }[]) => {
      for (const event of rows) events.push({ id: event.id, type: event.event_type, at, body: new Escaped(JSON.stringify(event.payload)) });
    };
    // Rendered from the row about to be written, as insertNew does: no payment session yet.
    emit(createdAt + 0.3, createdEvents(row, renderOrder(render, row, items)));
    batch["orders.order_items"].push(...items.map((item) => line([item.order_id, item.position, item.type, item.item_id, item.title, item.quantity, item.unit_price, item.line_total])));

    // A gateway order's payment page, prepared when POST /v1/orders answers (the created event was rendered before it).
    if (kind === "gateway") {
      const token = `sbx-${randomBytes(18).toString("base64url")}`;
      batch["orders.payment_sessions"].push(line([randomUUID(), id, "sandbox", token, `${target.publicBaseUrl}/sandbox/pay/${token}`, row.expires_at, micros(createdAt + 4.2)]));
    }

    const refunds: RefundRow[] = [];
    let updatedAt = createdAt;
    let paidAt: number | null = null;
    for (const change of order.plan()) {
      if (change.at > now) break;
      const from = row.status;
      const changedAt = readBack(change.at);
      let refund: RefundRow | undefined;
      if (change.refund) {
        refund = {
          id: randomUUID(), store_id: target.storeId, order_id: id, amount: row.amount, reason: random.pick(REFUND_REASONS), reference: null, status: "succeeded",
          failure_message: null, method: kind === "bank_transfer" ? "manual" : "gateway", gateway_key: null, idempotency_key: null, request_hash: null, response: null,
          attempts: 0, next_attempt_at: null, created_at: readBack(change.at - 2), updated_at: changedAt, livemode: true, restock: false,
        };
        refunds.push(refund);
        row = { ...row, refunded_amount: row.refunded_amount + refund.amount };
        batch["orders.refunds"].push(line([refund.id, refund.store_id, id, refund.amount, refund.reason, refund.status, refund.method, 0, micros(change.at - 2), micros(change.at)]));
      }
      updatedAt = change.at;
      if (change.to === "paid") paidAt = change.at;
      row = { ...row, status: change.to, updated_at: changedAt, ...(change.to === "paid" ? { paid_at: changedAt } : {}) };
      history.push(line([id, from, change.to, change.cause, change.detail ?? null, micros(change.at + 0.1)]));
      // The order as its events show it: after the change, with no live session (it is no longer pending).
      const message = renderOrder(render, row, items, undefined, refunds);
      emit(change.at + 0.2, statusChangeEvents(row, message, from));
      if (refund) emit(change.at + 0.3, [refundEvent(refund, message, renderRefund(refund))]);
      if (change.audit) {
        const entry = auditEntry(row.store_id, OPERATOR, change.audit.action, auditTarget("order", id), { label: row.payment_reference });
        batch["orders.audit_log"].push(line([entry.store_id, micros(change.at + 0.15), change.audit.actor, entry.action, entry.target, entry.target_label]));
      }
      if (change.cause === BANK_MUTATION_CAUSE) {
        const occurred = Math.max(createdAt + 30_000, change.at - random.int(1, 20) * MINUTE);
        batch["orders.bank_mutations"].push(line([row.store_id, change.detail, row.amount, "credit", new Date(occurred), `TRSF E-BANKING CR ${new Date(occurred).toISOString().slice(5, 10).replace("-", "/")}/FTSCY/WS95031 ${row.amount} ${row.buyer_name.toUpperCase()}`, "matched", "", id, micros(change.at - 0.5), 0]));
      }
      const held = reservationAfter(row, change.to, BANK_MATCH_GRACE_MS);
      if (held) reservations.set(row.amount, { orderId: id, until: held.getTime() });
    }
    // Reserved from its creation (a later order of the same amount finds it held until then).
    if (kind === "bank_transfer" && row.status === "pending") reservations.set(row.amount, { orderId: id, until: Infinity });

    const stored: Record<string, unknown> = { ...row, updated_at: micros(updatedAt), paid_at: paidAt === null ? null : micros(paidAt) };
    batch["orders.orders"].push(line(COLUMNS["orders.orders"].map((column) => stored[column])));
    batch["orders.order_status_history"].push(...history);

    // The relay publishes a moment after the commit; the webhook consumer records the
    // event (to the millisecond) and its delivery, which is sent at once.
    // An order's events reach the log in the order written (the relay reads by created_at).
    const poisonedOrder = random.next() < 0.004;
    let lastPublished = 0;
    let lastRecorded = 0;
    for (const event of events) {
      const published = (lastPublished = Math.max(event.at + random.int(5, 80), lastPublished + 0.01));
      batch["orders.outbox"].push(line([event.id, row.store_id, id, event.type, event.body, micros(event.at), micros(published)]));
      const recorded = (lastRecorded = Math.max(Math.floor(published + random.int(2, 25)), lastRecorded));
      batch["webhooks.events"].push(line([event.id, row.store_id, event.type, id, event.body, new Date(recorded)]));
      const deliveryId = randomUUID();
      const delivered = deliver(recorded + 0.05, now, state.down, poisonedOrder);
      batch["webhooks.deliveries"].push(
        line([deliveryId, target.endpointId, row.store_id, event.id, event.type, id, event.body, delivered.status, delivered.attempts.length, micros(delivered.next), delivered.error, micros(recorded + 0.05), micros(delivered.updated), "event"]),
      );
      for (const attempt of delivered.attempts) {
        batch["webhooks.delivery_attempts"].push(line([deliveryId, attempt.number, micros(attempt.started), attempt.code, attempt.latency, attempt.result, attempt.error, attempt.excerpt]));
      }
      if (delivered.status === "failed") state.onFailedDelivery?.(deliveryId);
    }
    return { row, eventCount: events.length };
  }

  let buyerPool: Buyer[] = [];
  /** Returning customers: a few buy often, most once or twice. */
  function pickBuyer(): Buyer {
    const n = buyerPool.length;
    return buyerPool[Math.min(n - 1, Math.floor(n * random.next() ** 2))]!;
  }

  /** How an order of `kind` created at `createdAt` goes on (changes after `now` simply have not happened yet). */
  function lifePlan(createdAt: number, kind: Kind): () => Change[] {
    const expires = createdAt + PAYMENT_WINDOW_MS;
    const seller = () => (random.next() < 0.7 ? target.memberEmail : "operator");
    const u = random.next();
    const sweptAt = expires + random.int(50, 5_000) + random.next();
    const refundLater = (paidAt: number): Change[] =>
      random.next() < 0.015
        ? [{ to: "refunded", cause: "refund", at: paidAt + random.int(1, 10) * DAY + random.int(0, 8 * HOUR), refund: true, audit: { actor: seller(), action: "order.refunded" as const } }]
        : [];
    if (kind === "none") return () => [{ to: "paid", cause: "free order", at: createdAt + 0.5 }];
    if (kind === "bank_transfer") {
      if (u < 0.72) {
        const at = createdAt + Math.min(PAYMENT_WINDOW_MS - MINUTE, (2 + 1_200 * random.next() ** 3) * MINUTE) + random.next();
        if (random.next() < 0.7) {
          const detail = `BCA-${new Date(at).toISOString().slice(0, 10).replace(/-/g, "")}-${String(++mutationSeq).padStart(8, "0")}`;
          return () => [{ to: "paid", cause: BANK_MUTATION_CAUSE, detail, at }, ...refundLater(at)];
        }
        return () => [{ to: "paid", cause: "marked paid by the seller", at, audit: { actor: seller(), action: "order.marked_paid" } }, ...refundLater(at)];
      }
      if (u < 0.95) {
        // One in a hundred is paid late, within the bank grace, by a transfer that matches.
        if (random.next() < 0.01) {
          const late = expires + random.int(1, 6 * 24) * HOUR;
          const detail = `BCA-${new Date(late).toISOString().slice(0, 10).replace(/-/g, "")}-${String(++mutationSeq).padStart(8, "0")}`;
          return () => [{ to: "expired", cause: "expiry", at: sweptAt }, { to: "paid", cause: BANK_MUTATION_CAUSE, detail, at: late }];
        }
        return () => [{ to: "expired", cause: "expiry", at: sweptAt }];
      }
      const at = createdAt + random.int(10, 20 * 60) * MINUTE + random.next();
      return () => [{ to: "cancelled", cause: "cancelled by the seller", at, audit: { actor: seller(), action: "order.cancelled" } }];
    }
    if (u < 0.78) {
      const at = createdAt + random.int(30, 30 * 60) * 1_000 + random.next();
      return () => [{ to: "paid", cause: "midtrans settlement", at }, ...refundLater(at)];
    }
    if (u < 0.82) {
      const at = createdAt + random.int(1, 10) * MINUTE + random.next();
      // The buyer tries again and it goes through, now and then.
      if (random.next() < 0.1) return () => [{ to: "failed", cause: "midtrans deny", at }, { to: "paid", cause: "midtrans settlement", at: at + random.int(2, 30) * MINUTE }];
      return () => [{ to: "failed", cause: "midtrans deny", at }];
    }
    if (u < 0.98) return () => [{ to: "expired", cause: "expiry", at: sweptAt }];
    const at = createdAt + random.int(10, 20 * 60) * MINUTE + random.next();
    return () => [{ to: "cancelled", cause: "cancelled by the seller", at, audit: { actor: seller(), action: "order.cancelled" } }];
  }

  const kindOf = (): { kind: Kind; method: string } => {
    const r = random.next();
    if (free && r < 0.01) return { kind: "none", method: "none" };
    if (r < 0.51) return { kind: "bank_transfer", method: "bank_transfer" };
    return { kind: "gateway", method: random.weighted(GATEWAY_WEIGHTS) };
  };

  /** `count` creation times over the `days` before `now`, busier in the evening, oldest first. */
  function creationTimes(count: number, days: number, now: number): Float64Array {
    const times = new Float64Array(count);
    const start = now - days * DAY;
    const top = Math.max(...HOUR_WEIGHTS_WIB);
    for (let n = 0; n < count; ) {
      // Whole milliseconds: the service stamps created_at from a JS Date.
      const at = Math.floor(start + random.next() * (now - MINUTE - start));
      const hourWib = (new Date(at).getUTCHours() + 7) % 24;
      if (random.next() * top < HOUR_WEIGHTS_WIB[hourWib]!) times[n++] = at;
    }
    return times.sort();
  }

  /** Time spent generating rows (the rest of a seed's time is the database taking them). */
  let generatingMs = 0;

  async function writeAll(make: (batch: Batch, from: number, to: number) => void, total: number, counts: SeedCounts, label: string) {
    const started = performance.now();
    let loading: Promise<void> = Promise.resolve();
    let rows = 0;
    for (let from = 0; from < total; from += batchOrders) {
      const to = Math.min(total, from + batchOrders);
      const batch = emptyBatch();
      // Generated in slices so the previous batch's COPY streams keep moving meanwhile.
      for (let at = from; at < to; at += 250) {
        const t0 = performance.now();
        make(batch, at, Math.min(to, at + 250));
        generatingMs += performance.now() - t0;
        await new Promise((resolve) => setImmediate(resolve));
      }
      for (const [table, lines] of Object.entries(batch)) {
        counts[table] = (counts[table] ?? 0) + lines.length;
        rows += lines.length;
      }
      await loading;
      loading = load(batch);
      const seconds = (performance.now() - started) / 1000;
      if ((from / batchOrders) % 20 === 19 || to === total) log(`  ${label}: ${to.toLocaleString("en")} of ${total.toLocaleString("en")} orders generated, ${Math.round(rows / seconds).toLocaleString("en")} rows/s so far`);
    }
    await loading;
    return rows;
  }

  return {
    /** N orders over `days` before `now`, and everything written with them. */
    async history(orders: number, days = 90, now = Date.now()): Promise<SeedReport> {
      const started = performance.now();
      generatingMs = 0;
      const dropped = await dropSecondaryIndexes();
      // 90 days of history was mailed about long ago: the outbox trigger that owes buyer
      // mail (016_buyer_mails.sql) must not owe it again for every seeded event.
      await sql`alter table orders.outbox disable trigger buyer_mails_from_outbox`;
      const counts: SeedCounts = {};
      buyerPool = buyers(random, Math.max(50, Math.round(orders / 4)));
      const times = creationTimes(orders, days, now);
      const samples: Partial<SeedSamples> & { changedOrderIds: string[] } = { changedOrderIds: [] };
      const down = outages(now);
      const middle = Math.floor(orders / 2);
      let sawFree = false;
      const state = { down, counts, onFailedDelivery: (id: string) => void (samples.failedDeliveryId = id) };
      let rows = await writeAll(
        (batch, from, to) => {
          for (let n = from; n < to; n++) {
            const { kind, method } = kindOf();
            const { row, eventCount } = writeOrder(batch, { createdAt: times[n]!, kind, method, plan: lifePlan(times[n]!, kind) }, now, state);
            if (n >= middle && !samples.paidOrderId && row.status === "paid" && eventCount >= 3) {
              samples.paidOrderId = row.id;
              samples.buyerEmail = row.buyer_email;
              samples.paymentReference = row.payment_reference;
            }
            if (row.external_id && n >= middle && !samples.externalId) samples.externalId = row.external_id;
            if (row.status === "pending" && row.payment_kind === "bank_transfer") samples.pendingTransferOrderId = row.id;
            if (row.status !== "pending" && samples.changedOrderIds.length < 20 && random.next() < 200 / orders) samples.changedOrderIds.push(row.id);
            // A free order is created and paid within a millisecond: one is read back too.
            if (kind === "none" && !sawFree) {
              sawFree = true;
              samples.changedOrderIds.push(row.id);
            }
          }
        },
        orders,
        counts,
        "history",
      );
      // Credits nobody could match wait for review (docs/reconciliation.md#review): a few per thousand orders.
      const unmatched = emptyBatch();
      for (let n = 0; n < Math.max(3, Math.round(orders / 2_000)); n++) {
        const at = now - random.next() * days * DAY;
        const amount = random.int(10, 900) * 1_000 + random.int(1, 999);
        unmatched["orders.bank_mutations"].push(
          line([target.storeId, `BCA-${new Date(at).toISOString().slice(0, 10).replace(/-/g, "")}-U${String(n).padStart(7, "0")}`, amount, "credit", new Date(at - 60_000), `TRSF E-BANKING CR ${amount}`, "unmatched", "no order with this amount", null, micros(at), 0]),
        );
      }
      await load(unmatched);
      counts["orders.bank_mutations"] = (counts["orders.bank_mutations"] ?? 0) + unmatched["orders.bank_mutations"].length;
      rows += unmatched["orders.bank_mutations"].length;
      // Each amount's last holder keeps its row (006_transfer_code_use.sql); written last, once every order is in.
      const held = [...reservations.entries()].map(([amount, r]) => line([target.storeId, amount, r.orderId, r.until === Infinity ? "infinity" : micros(r.until)]));
      await copyReservations(held);
      counts["orders.transfer_amount_reservations"] = held.length;
      rows += held.length;
      // The overview's sales by Jakarta day (012_sales_days.sql), as the payments added
      // them, in slot 0: the store's rows are replaced, whatever slots held before.
      await sql`delete from orders.sales_days where store_id = ${target.storeId}`;
      const sold = await sql`
        insert into orders.sales_days (store_id, day, slot, paid_count, paid_amount)
        select store_id, (paid_at at time zone 'Asia/Jakarta')::date, 0, count(*), sum(amount)
        from orders.orders where store_id = ${target.storeId} and paid_at is not null group by 1, 2`;
      counts["orders.sales_days"] = sold.count;
      rows += sold.count;
      const indexSeconds = await createIndexes(dropped);
      await sql`alter table orders.outbox enable trigger buyer_mails_from_outbox`;
      const seconds = (performance.now() - started) / 1000;
      return { orders, rows, seconds, rowsPerSecond: Math.round(rows / seconds), generateSeconds: generatingMs / 1000, indexSeconds, counts, samples: samples as SeedSamples };
    },

    /**
     * `count` pending orders all expiring within a second of `expiresAt` (made a payment
     * window before it, as a flash sale would), with their created events delivered.
     * The reservations are read again first: orders made through the API since hold codes too.
     */
    async pendingBurst(count: number, expiresAt: number): Promise<{ rows: number; seconds: number }> {
      const started = performance.now();
      reservations.clear();
      for (const r of await sql<{ amount: string; order_id: string; until: number }[]>`
        select amount::text as amount, order_id, extract(epoch from reserved_until)::float8 * 1000 as until
        from orders.transfer_amount_reservations where store_id = ${target.storeId}`) {
        reservations.set(Number(r.amount), { orderId: r.order_id, until: r.until });
      }
      if (buyerPool.length === 0) buyerPool = buyers(random, Math.max(50, Math.round(count / 4)));
      const counts: SeedCounts = {};
      const createdAt = expiresAt - PAYMENT_WINDOW_MS;
      const held: { amount: number; orderId: string }[] = [];
      let rows = await writeAll(
        (batch, from, to) => {
          for (let n = from; n < to; n++) {
            const { kind, method } = kindOf();
            // Nothing to pay never waits: those are gateway orders here.
            const paid = kind === "none" ? { kind: "gateway" as const, method: "qris" } : { kind, method };
            const { row } = writeOrder(batch, { createdAt: createdAt + Math.floor((n / count) * 1_000), ...paid, plan: () => [] }, Date.now(), { down: [], counts });
            if (row.payment_kind === "bank_transfer") held.push({ amount: row.amount, orderId: row.id });
          }
        },
        count,
        counts,
        "expiring burst",
      );
      // Each new hold as insertNewOrder's upsert writes it (only over a reservation that has run out).
      for (let i = 0; i < held.length; i += 5_000) {
        const slice = held.slice(i, i + 5_000);
        await sql`
          insert into orders.transfer_amount_reservations as r (store_id, amount, order_id, reserved_until)
          select ${target.storeId}::uuid, x.amount, x.order_id, 'infinity' from unnest(${slice.map((h) => h.amount)}::bigint[], ${slice.map((h) => h.orderId)}::uuid[]) as x(amount, order_id)
          on conflict (store_id, amount) do update set order_id = excluded.order_id, reserved_until = excluded.reserved_until
            where r.reserved_until < clock_timestamp()`;
      }
      rows += held.length;
      return { rows, seconds: (performance.now() - started) / 1000 };
    },

    /** ANALYZE and VACUUM as autovacuum would have after 90 days: planner statistics and visibility maps. */
    async settle() {
      const started = performance.now();
      for (const table of [...Object.keys(COLUMNS), "orders.transfer_amount_reservations"]) await sql.unsafe(`vacuum (analyze) ${table}`);
      return (performance.now() - started) / 1000;
    },

    close: () => sql.end({ timeout: 5 }),
  };

  /**
   * Drops the seeded tables' indexes that back no constraint (keys and unique
   * constraints stay, so a seeding mistake still fails loudly); their definitions
   * are kept to build them again. A bulk load and one sort per index afterwards cost a
   * fraction of keeping a dozen indexes up to date row by row. Only while the product
   * is stopped: its sweepers would scan the tables without them.
   */
  async function dropSecondaryIndexes(): Promise<{ name: string; definition: string }[]> {
    const tables = [...Object.keys(COLUMNS), "orders.transfer_amount_reservations"];
    const indexes = await sql<{ name: string; definition: string }[]>`
      select format('%I.%I', i.schemaname, i.indexname) as name, i.indexdef as definition
      from pg_indexes i
      where format('%s.%s', i.schemaname, i.tablename) = any(${tables}::text[])
        and not exists (select 1 from pg_constraint c where c.conindid = format('%I.%I', i.schemaname, i.indexname)::regclass)`;
    for (const index of indexes) await sql.unsafe(`drop index ${index.name}`);
    return indexes;
  }

  /** Builds the dropped indexes again, two at a time (one a core), with room to sort. */
  async function createIndexes(indexes: { name: string; definition: string }[]): Promise<number> {
    const started = performance.now();
    const queue = [...indexes];
    await Promise.all(
      [0, 1].map(() =>
        sql.reserve().then(async (connection) => {
          try {
            await connection.unsafe(`set maintenance_work_mem = '256MB'`);
            for (let index = queue.shift(); index; index = queue.shift()) await connection.unsafe(index.definition);
          } finally {
            connection.release();
          }
        }),
      ),
    );
    return (performance.now() - started) / 1000;
  }

  async function copyReservations(rows: string[]) {
    if (rows.length === 0) return;
    const writable = await sql`copy orders.transfer_amount_reservations (store_id, amount, order_id, reserved_until) from stdin`.writable();
    for (let i = 0; i < rows.length; i += 2_000) {
      if (!writable.write(rows.slice(i, i + 2_000).join(""))) await new Promise((resolve) => writable.once("drain", resolve));
    }
    writable.end();
    await finished(writable);
  }
}

export type Seeder = ReturnType<typeof createSeeder>;
