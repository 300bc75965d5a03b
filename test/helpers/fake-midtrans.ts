import { randomUUID } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { jakartaWallClock } from "../../common/jakarta-time.js";
import { midtransSignature } from "../../common/midtrans.js";

/** How the fake answers `POST /snap/v1/transactions`. */
export type FakeMidtransMode = "ok" | "fail" | "hang";

/**
 * How the fake answers the Core API (`/v2/{order_id}/status|refund|expire`), apart from
 * the Snap `mode`: "ok" like Midtrans; "refuse" answers every refund and every expire
 * with status_code "412" (status checks still answer); "down" answers HTTP 503 (an HTML
 * page) to every Core API call; "hang" never answers.
 */
export type FakeMidtransCoreMode = "ok" | "refuse" | "down" | "hang";

/** One refund the fake made, as its status answers list them (amounts in whole rupiah here). */
export interface FakeMidtransRefund {
  refund_chargeback_id: number;
  refund_amount: number;
  created_at: string;
  reason: string;
  /** The merchant's refund_key; absent for a refund made at the gateway itself (its dashboard). */
  refund_key?: string;
}

/** The fake's state for one order_id (a copy; change it with `setStatus`). */
export interface FakeMidtransTransaction {
  order_id: string;
  transaction_id: string;
  /** Whole rupiah. */
  gross_amount: number;
  /** gross_amount as answered ("10000.00" unless `setStatus` was given a string). */
  gross_amount_text: string;
  transaction_status: string;
  /** Omitted from answers when undefined. */
  fraud_status?: string;
  payment_type: string;
  transaction_time: string;
  refunds: FakeMidtransRefund[];
  /** Made by Snap and not yet given a status with `setStatus` (the buyer chose no payment method yet). */
  snap_only: boolean;
}

export interface FakeMidtransSetStatusOptions {
  /** Default "accept"; null leaves fraud_status out of answers. */
  fraud_status?: string | null;
  /** Required when the order_id is new to the fake; a string is answered verbatim. */
  gross_amount?: number | string;
  /** Default "qris". */
  payment_type?: string;
}

export interface FakeMidtransRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (undefined when it was not JSON). */
  body: any;
  /** What the fake answered: 201, 400, 401, 500, or undefined while hanging. */
  status?: number;
  /** The token issued for this request (201 only). */
  token?: string;
  /** Core API calls: the order_id from the path, URL-decoded. */
  orderId?: string;
  /** Core API calls: the body's status_code answered ("200", "404", "412"…). */
  statusCode?: string;
  /** Core API calls: the JSON body answered. */
  answer?: any;
  /** When it arrived (ms since the epoch). */
  at: number;
}

export interface FakeMidtrans {
  /** Base URL, e.g. http://127.0.0.1:41234 — give it as MIDTRANS_BASE_URL. */
  readonly url: string;
  /** How many `POST /snap/v1/transactions` arrived (whatever was answered). */
  readonly calls: number;
  /** Every request received, in order. */
  readonly requests: FakeMidtransRequest[];
  /** "ok" answers like Snap; "fail" answers 500; "hang" never answers. */
  mode: FakeMidtransMode;
  /** How the Core API answers; see FakeMidtransCoreMode. Default "ok". */
  coreMode: FakeMidtransCoreMode;
  /** How long a Core API answer takes, like a slow gateway. Default 0. */
  coreDelayMs: number;
  /**
   * Whether a transaction only Snap made (no `setStatus` yet) is visible to the Core API
   * as `pending`. Default true. Real Midtrans answers "404" for it until the buyer picks a
   * payment method on the Snap page; set false to behave so.
   */
  snapTransactionsVisible: boolean;
  /** The transaction requests only, optionally for one order_id. */
  transactions(orderId?: string): FakeMidtransRequest[];
  /**
   * Says what became of a transaction (the buyer paid: "settlement"; "deny", "cancel",
   * "expire"…). An order_id the fake does not know is made known (give `gross_amount`).
   */
  setStatus(orderId: string, transactionStatus: string, options?: FakeMidtransSetStatusOptions): void;
  /** A copy of the fake's state for the order_id, or undefined. */
  transaction(orderId: string): FakeMidtransTransaction | undefined;
  /**
   * A refund made at the gateway itself, not through the Core API (in the Midtrans
   * dashboard, say): recorded without a refund_key, the transaction turns
   * partial_refund or refund. Whole rupiah; at most what is left.
   */
  refundAtGateway(orderId: string, amount: number, reason?: string): void;
  /**
   * The HTTP notification Midtrans would send about the transaction now: the fields of
   * its status answer, signed (undefined for an order_id the Core API does not know).
   */
  notification(orderId: string): Record<string, unknown> | undefined;
  /** Recorded `POST /v2/{id}/refund` requests, optionally for one order_id. */
  refunds(orderId?: string): FakeMidtransRequest[];
  /** Recorded `GET /v2/{id}/status` requests, optionally for one order_id. */
  statusChecks(orderId?: string): FakeMidtransRequest[];
  /** Recorded `POST /v2/{id}/expire` requests, optionally for one order_id. */
  expires(orderId?: string): FakeMidtransRequest[];
  close(): Promise<void>;
}

const ORDER_ID = /^[A-Za-z0-9\-_~.]{1,50}$/;
const EXPIRY_UNITS = ["second", "minute", "hour", "day"];
const START_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} [+-]\d{4}$/;

const isInt = (value: unknown): value is number => typeof value === "number" && Number.isInteger(value);
const isText = (value: unknown): value is string => typeof value === "string" && value.length > 0;

/** The checks Snap makes on a transaction body; returns Midtrans-style error messages. */
function validate(body: any): string[] {
  const errors: string[] = [];
  if (typeof body !== "object" || body === null || Array.isArray(body)) return ["Request body is not a JSON object"];
  const details = body.transaction_details;
  if (typeof details !== "object" || details === null) {
    errors.push("transaction_details is required");
    return errors;
  }
  if (!isText(details.order_id)) errors.push("transaction_details.order_id is required and must be a string");
  else if (!ORDER_ID.test(details.order_id)) errors.push("transaction_details.order_id format is invalid");
  if (!isInt(details.gross_amount)) errors.push("transaction_details.gross_amount must be an integer");
  else if (details.gross_amount < 1) errors.push("transaction_details.gross_amount must be greater than or equal to 1");

  if (body.item_details !== undefined) {
    if (!Array.isArray(body.item_details)) {
      errors.push("item_details must be an array");
    } else {
      let sum = 0;
      body.item_details.forEach((item: any, index: number) => {
        const at = `item_details[${index}]`;
        if (typeof item !== "object" || item === null) return errors.push(`${at} must be an object`);
        if (!isText(item.id)) errors.push(`${at}.id is required`);
        else if (item.id.length > 50) errors.push(`${at}.id is too long`);
        if (!isText(item.name)) errors.push(`${at}.name is required`);
        else if (item.name.length > 50) errors.push(`${at}.name is too long`);
        if (!isInt(item.price)) errors.push(`${at}.price must be an integer`);
        if (!isInt(item.quantity) || item.quantity < 1) errors.push(`${at}.quantity must be an integer of at least 1`);
        if (isInt(item.price) && isInt(item.quantity)) sum += item.price * item.quantity;
      });
      if (errors.length === 0 && isInt(details.gross_amount) && sum !== details.gross_amount) {
        errors.push("transaction_details.gross_amount is not equal to the sum of item_details");
      }
    }
  }
  if (body.enabled_payments !== undefined) {
    if (!Array.isArray(body.enabled_payments) || !body.enabled_payments.every(isText)) {
      errors.push("enabled_payments must be an array of strings");
    }
  }
  if (body.callbacks !== undefined && body.callbacks.finish !== undefined) {
    try {
      new URL(body.callbacks.finish);
    } catch {
      errors.push("callbacks.finish must be a valid URL");
    }
  }
  if (body.expiry !== undefined) {
    const expiry = body.expiry;
    if (!EXPIRY_UNITS.includes(expiry?.unit)) errors.push("expiry.unit must be one of second, minute, hour, day");
    if (!isInt(expiry?.duration) || expiry.duration < 1) errors.push("expiry.duration must be a positive integer");
    if (expiry?.start_time !== undefined && !(typeof expiry.start_time === "string" && START_TIME.test(expiry.start_time))) {
      errors.push("expiry.start_time format must be yyyy-MM-dd hh:mm:ss Z");
    }
  }
  return errors;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

const CORE_PATH = /^\/v2\/([^/]+)\/(status|refund|expire)$/;
const CORE_METHOD: Record<string, string> = { status: "GET", refund: "POST", expire: "POST" };

/** Midtrans' amount text: "10000.00". */
const money = (amount: number) => `${amount}.00`;

/**
 * The body status_code Midtrans gives a transaction in status answers: "201" pending,
 * "200" paid (settlement, capture) and refunded (refund, partial_refund, as in the Get
 * Transaction Status reference's refund sample), "407" expire, "202" denied, cancelled
 * or failed (as the notifications carry them).
 */
export function fakeMidtransStatusCode(transactionStatus: string): string {
  switch (transactionStatus) {
    case "pending":
      return "201";
    case "expire":
      return "407";
    case "deny":
    case "cancel":
    case "failure":
      return "202";
    default:
      return "200";
  }
}

const CANNOT_MODIFY = "Merchant cannot modify the status of the transaction";
const REFUSED_BY_PROVIDER = "Refund is rejected by the payment provider";

/**
 * A local stand-in for Midtrans on a real loopback port, serving both hosts (give its
 * `url` as MIDTRANS_BASE_URL and MIDTRANS_API_BASE_URL):
 *
 * - Snap: `POST /snap/v1/transactions` with the server key as Basic auth, checked and
 *   answered the way Snap does; `mode` makes it fail (500) or hang. A transaction Snap
 *   made is known to the Core API as `pending` (see `snapTransactionsVisible`).
 * - Core API, per order_id: `GET /v2/{id}/status`, `POST /v2/{id}/refund`, `POST
 *   /v2/{id}/expire`, Basic auth checked (HTTP 401 otherwise), answered HTTP 200 with
 *   Midtrans' body `status_code` as Midtrans does; `coreMode` makes it refuse, be down or
 *   hang. `setStatus` says what the buyer did.
 *
 * Every request is recorded.
 */
/**
 * The order service's configuration for the Midtrans gateway played by the fake at
 * `url` (Snap and the Core API alike), with `serverKey` and a `timeout` per call;
 * `extra` adds or overrides variables.
 */
export function fakeMidtransEnv(url: string, serverKey: string, { timeout = "1s", ...extra }: Record<string, string> & { timeout?: string } = {}): Record<string, string> {
  return {
    PAYMENT_GATEWAY: "midtrans",
    MIDTRANS_BASE_URL: url,
    MIDTRANS_API_BASE_URL: url,
    MIDTRANS_SERVER_KEY: serverKey,
    MIDTRANS_CLIENT_KEY: "SB-Mid-client-test",
    MIDTRANS_TIMEOUT: timeout,
    ...extra,
  };
}

export async function startFakeMidtrans(options: { serverKey: string }): Promise<FakeMidtrans> {
  const expectedAuth = `Basic ${Buffer.from(`${options.serverKey}:`).toString("base64")}`;
  const requests: FakeMidtransRequest[] = [];
  const transactions = new Map<string, FakeMidtransTransaction>();
  /** order_id → refund_key → the first (successful) answer for that key. */
  const refundAnswers = new Map<string, Map<string, Record<string, unknown>>>();
  let calls = 0;
  let chargebackIds = 0;
  let url = "";

  const visible = (orderId: string) => {
    const tx = transactions.get(orderId);
    return tx && (!tx.snap_only || fake.snapTransactionsVisible) ? tx : undefined;
  };

  const notFound = () => ({ status_code: "404", status_message: "Transaction doesn't exist.", id: randomUUID() });

  const basics = (tx: FakeMidtransTransaction) => ({
    transaction_id: tx.transaction_id,
    order_id: tx.order_id,
    merchant_id: "G000000000",
    gross_amount: tx.gross_amount_text,
    currency: "IDR",
    payment_type: tx.payment_type,
    transaction_time: tx.transaction_time,
    transaction_status: tx.transaction_status,
  });

  const refunded = (tx: FakeMidtransTransaction) => tx.refunds.reduce((sum, r) => sum + r.refund_amount, 0);

  /** Gives `amount` back on the transaction: partial_refund, or refund once nothing is left. */
  function recordRefund(tx: FakeMidtransTransaction, amount: number, reason: string, key?: string): FakeMidtransRefund {
    const left = tx.gross_amount - refunded(tx);
    const refund: FakeMidtransRefund = {
      refund_chargeback_id: ++chargebackIds,
      refund_amount: amount,
      created_at: jakartaWallClock(new Date()),
      reason,
      ...(key === undefined ? {} : { refund_key: key }),
    };
    tx.refunds.push(refund);
    tx.transaction_status = amount === left ? "refund" : "partial_refund";
    return refund;
  }

  /** `GET /v2/{id}/status`: a notification's fields, signed, with the refunds once there are some. */
  function statusAnswer(orderId: string): Record<string, unknown> {
    const tx = visible(orderId);
    if (!tx) return notFound();
    const statusCode = fakeMidtransStatusCode(tx.transaction_status);
    return {
      status_code: statusCode,
      status_message: "Success, transaction is found",
      ...basics(tx),
      ...(tx.fraud_status === undefined ? {} : { fraud_status: tx.fraud_status }),
      signature_key: midtransSignature({ order_id: tx.order_id, status_code: statusCode, gross_amount: tx.gross_amount_text }, options.serverKey),
      ...(tx.refunds.length === 0
        ? {}
        : {
            refund_amount: money(refunded(tx)),
            refunds: tx.refunds.map((r) => ({ ...r, refund_amount: money(r.refund_amount) })),
          }),
    };
  }

  /** `POST /v2/{id}/refund`: settled transactions only, never more than is left, once per refund_key. */
  function refundAnswer(orderId: string, body: any): Record<string, unknown> {
    const tx = visible(orderId);
    if (!tx) return notFound();
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      return { status_code: "413", status_message: "The request cannot be processed due to malformed syntax in the request body" };
    }
    const key: string = body.refund_key === undefined ? randomUUID() : body.refund_key;
    if (typeof key !== "string" || !/^[A-Za-z0-9_-]{1,100}$/.test(key)) {
      return { status_code: "400", status_message: "refund_key must be alphabets, numbers, dash or underscore" };
    }
    const earlier = refundAnswers.get(orderId)?.get(key);
    if (earlier) return earlier; // the same refund again: answered as before, nothing more refunded
    if (fake.coreMode === "refuse") return { status_code: "412", status_message: REFUSED_BY_PROVIDER };
    if (!["settlement", "capture", "partial_refund"].includes(tx.transaction_status)) {
      return { status_code: "412", status_message: CANNOT_MODIFY };
    }
    const left = tx.gross_amount - refunded(tx);
    const amount = body.amount === undefined ? left : body.amount;
    if (typeof amount !== "number" || !Number.isInteger(amount) || amount < 1) {
      return { status_code: "400", status_message: "amount must be a positive integer" };
    }
    if (typeof body.reason !== "undefined" && (typeof body.reason !== "string" || body.reason.length > 255)) {
      return { status_code: "400", status_message: "reason must be a string of at most 255 characters" };
    }
    if (amount > left) {
      return { status_code: "412", status_message: `Refund amount exceeds the remaining amount of the transaction (${money(left)})` };
    }
    const refund = recordRefund(tx, amount, body.reason ?? "", key);
    const answer = {
      status_code: "200",
      status_message: "Success, refund request is approved",
      ...basics(tx),
      refund_chargeback_id: refund.refund_chargeback_id,
      refund_amount: money(amount),
      refund_key: key,
    };
    if (!refundAnswers.has(orderId)) refundAnswers.set(orderId, new Map());
    refundAnswers.get(orderId)!.set(key, answer);
    return answer;
  }

  /** `POST /v2/{id}/expire`: pending → expire ("407"); past pending → "412". */
  function expireAnswer(orderId: string): Record<string, unknown> {
    const tx = visible(orderId);
    if (!tx) return notFound();
    if (fake.coreMode === "refuse") return { status_code: "412", status_message: CANNOT_MODIFY };
    if (tx.transaction_status !== "pending" && tx.transaction_status !== "expire") {
      return { status_code: "412", status_message: CANNOT_MODIFY };
    }
    tx.transaction_status = "expire";
    tx.snap_only = false;
    return { status_code: "407", status_message: "Success, transaction has expired", ...basics(tx) };
  }

  const answer = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? "/").split("?")[0]!;
    const text = await readBody(req).catch(() => "");
    let body: any;
    try {
      body = text === "" ? undefined : JSON.parse(text);
    } catch {
      body = undefined;
    }
    const record: FakeMidtransRequest = { method: req.method ?? "", path, headers: req.headers, body, at: Date.now() };
    requests.push(record);

    const core = CORE_PATH.exec(path);
    if (core) {
      let orderId: string;
      try {
        orderId = decodeURIComponent(core[1]!);
      } catch {
        orderId = core[1]!;
      }
      const action = core[2]!;
      record.orderId = orderId;
      if (fake.coreMode === "hang") return;
      if (fake.coreDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, fake.coreDelayMs));
      if (fake.coreMode === "down") {
        record.status = 503;
        const page = "<html><body><h1>503 Service Temporarily Unavailable</h1></body></html>";
        res.writeHead(503, { "content-type": "text/html", "content-length": Buffer.byteLength(page) });
        return res.end(page);
      }
      const answer = (status: number, json: Record<string, unknown>) => {
        record.status = status;
        record.statusCode = json.status_code as string;
        record.answer = json;
        send(res, status, json);
      };
      if (req.headers.authorization !== expectedAuth) {
        return answer(401, {
          status_code: "401",
          status_message: "Access denied due to unauthorized transaction, please check client or server key",
          id: randomUUID(),
        });
      }
      if (req.method !== CORE_METHOD[action]) {
        return answer(405, { status_code: "405", status_message: "HTTP method is not allowed" });
      }
      if (action === "status") return answer(200, statusAnswer(orderId));
      if (action === "expire") return answer(200, expireAnswer(orderId));
      if (text !== "" && body === undefined) {
        return answer(200, { status_code: "413", status_message: "The request cannot be processed due to malformed syntax in the request body" });
      }
      return answer(200, refundAnswer(orderId, body ?? {}));
    }

    if (req.method !== "POST" || path !== "/snap/v1/transactions") {
      record.status = 404;
      return send(res, 404, { error_messages: ["Not found"] });
    }
    calls++;
    if (fake.mode === "hang") return; // never answer: the adapter must give up on its own
    if (fake.mode === "fail") {
      record.status = 500;
      return send(res, 500, { error_messages: ["Sorry, we encountered internal server error. We will fix this soon."] });
    }
    if (req.headers.authorization !== expectedAuth) {
      record.status = 401;
      return send(res, 401, {
        error_messages: [
          "Access denied due to unauthorized transaction, please check client or server key",
          "Visit https://snap-docs.midtrans.com/#request-headers for more details",
        ],
      });
    }
    if (!String(req.headers["content-type"] ?? "").startsWith("application/json") || body === undefined) {
      record.status = 400;
      return send(res, 400, { error_messages: ["Request body must be JSON"] });
    }
    const errors = validate(body);
    if (errors.length > 0) {
      record.status = 400;
      return send(res, 400, { error_messages: errors });
    }
    const token = randomUUID();
    record.status = 201;
    record.token = token;
    const orderId: string = body.transaction_details.order_id;
    if (!transactions.has(orderId)) {
      transactions.set(orderId, {
        order_id: orderId,
        transaction_id: randomUUID(),
        gross_amount: body.transaction_details.gross_amount,
        gross_amount_text: money(body.transaction_details.gross_amount),
        transaction_status: "pending",
        fraud_status: "accept",
        payment_type: "qris",
        transaction_time: jakartaWallClock(new Date()),
        refunds: [],
        snap_only: true,
      });
    }
    send(res, 201, { token, redirect_url: `${url}/snap/v4/redirection/${token}` });
  };
  // Not awaited: a throw in the fake is a bug in it, and as an unhandled rejection it fails the test file.
  const server = createServer((req, res) => void answer(req, res));

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const coreRequests = (action: string, orderId?: string) =>
    requests.filter((r) => r.orderId !== undefined && r.path.endsWith(`/${action}`) && (orderId === undefined || r.orderId === orderId));

  const fake: FakeMidtrans = {
    url,
    get calls() {
      return calls;
    },
    requests,
    mode: "ok",
    coreMode: "ok",
    coreDelayMs: 0,
    snapTransactionsVisible: true,
    transactions(orderId?: string) {
      return requests.filter(
        (r) =>
          r.method === "POST" &&
          r.path === "/snap/v1/transactions" &&
          (orderId === undefined || r.body?.transaction_details?.order_id === orderId),
      );
    },
    setStatus(orderId, transactionStatus, setOptions = {}) {
      let tx = transactions.get(orderId);
      if (!tx) {
        if (setOptions.gross_amount === undefined) {
          throw new Error(`fake midtrans: ${orderId} is new, so setStatus needs gross_amount`);
        }
        tx = {
          order_id: orderId,
          transaction_id: randomUUID(),
          gross_amount: 0,
          gross_amount_text: "",
          transaction_status: transactionStatus,
          payment_type: "qris",
          transaction_time: jakartaWallClock(new Date()),
          refunds: [],
          snap_only: false,
        };
        transactions.set(orderId, tx);
      }
      if (setOptions.gross_amount !== undefined) {
        const given = setOptions.gross_amount;
        tx.gross_amount = typeof given === "number" ? given : Math.trunc(Number(given));
        tx.gross_amount_text = typeof given === "number" ? money(given) : given;
      }
      tx.transaction_status = transactionStatus;
      tx.fraud_status = setOptions.fraud_status === null ? undefined : (setOptions.fraud_status ?? "accept");
      if (setOptions.payment_type !== undefined) tx.payment_type = setOptions.payment_type;
      tx.snap_only = false;
    },
    transaction(orderId) {
      const tx = transactions.get(orderId);
      return tx && { ...tx, refunds: tx.refunds.map((r) => ({ ...r })) };
    },
    refundAtGateway(orderId, amount, reason = "refunded in the Midtrans dashboard") {
      const tx = transactions.get(orderId);
      if (!tx || !["settlement", "capture", "partial_refund"].includes(tx.transaction_status)) {
        throw new Error(`fake midtrans: ${orderId} is not a paid transaction`);
      }
      if (!Number.isInteger(amount) || amount < 1 || amount > tx.gross_amount - refunded(tx)) throw new Error(`fake midtrans: cannot refund ${amount} on ${orderId}`);
      recordRefund(tx, amount, reason);
    },
    notification(orderId) {
      if (!visible(orderId)) return undefined;
      const { status_message: _answerOnly, ...fields } = statusAnswer(orderId);
      return { ...fields, status_message: "midtrans payment notification" };
    },
    refunds(orderId?: string) {
      return coreRequests("refund", orderId);
    },
    statusChecks(orderId?: string) {
      return coreRequests("status", orderId);
    },
    expires(orderId?: string) {
      return coreRequests("expire", orderId);
    },
    async close() {
      server.closeAllConnections(); // hanging requests included
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}
