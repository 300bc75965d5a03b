import { randomUUID } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** How the fake answers `POST /snap/v1/transactions`. */
export type FakeMidtransMode = "ok" | "fail" | "hang";

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
  /** The transaction requests only, optionally for one order_id. */
  transactions(orderId?: string): FakeMidtransRequest[];
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

/**
 * A local stand-in for Midtrans Snap on a real loopback port: `POST
 * /snap/v1/transactions` with the server key as Basic auth, checked and answered the
 * way Snap does. Every request is recorded; `mode` makes it fail (500) or hang.
 */
export async function startFakeMidtrans(options: { serverKey: string }): Promise<FakeMidtrans> {
  const expectedAuth = `Basic ${Buffer.from(`${options.serverKey}:`).toString("base64")}`;
  const requests: FakeMidtransRequest[] = [];
  let calls = 0;
  let url = "";

  const server = createServer(async (req, res) => {
    const path = (req.url ?? "/").split("?")[0]!;
    const text = await readBody(req).catch(() => "");
    let body: any;
    try {
      body = text === "" ? undefined : JSON.parse(text);
    } catch {
      body = undefined;
    }
    const record: FakeMidtransRequest = { method: req.method ?? "", path, headers: req.headers, body };
    requests.push(record);

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
    send(res, 201, { token, redirect_url: `${url}/snap/v4/redirection/${token}` });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const fake: FakeMidtrans = {
    url,
    get calls() {
      return calls;
    },
    requests,
    mode: "ok",
    transactions(orderId?: string) {
      return requests.filter(
        (r) =>
          r.method === "POST" &&
          r.path === "/snap/v1/transactions" &&
          (orderId === undefined || r.body?.transaction_details?.order_id === orderId),
      );
    },
    async close() {
      server.closeAllConnections(); // hanging requests included
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}
