// A seeded, bounded HTTP fuzzer for the gateway (docs/api.md).
//
// Every request is a valid request first (a real order body, a correctly signed
// Midtrans notification, a clean query string) that a handful of seeded mutators then
// bend. Request `i` of seed `s` draws from its own PRNG stream, so it is the same bytes
// whatever the concurrency (only the ids of the orders made at setup differ between
// runs). Requests go over raw loopback TCP sockets, so the fuzzer can send what fetch()
// refuses to: control bytes in headers, lone surrogates, truncated JSON, bad request
// lines, oversized headers.
//
// What it reports: every 5xx; every /v1 response (and every error outside the hosted
// pages) that is not the JSON envelope; every JSON response whose envelope is malformed;
// requests that got no answer; and softer contract checks (headers that docs/api.md#headers requires, an
// error code that does not match its status, leaked internals, invalid input accepted).
import { createHash } from "node:crypto";
import net from "node:net";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
// Types only: prepareFuzzStores imports the stack lazily, so runFuzz stays usable alone.
import { ERROR_CODES } from "../../common/api-shapes.js";
import type { Stack } from "./stack.js";
import type { Sql } from "../../platform/db.js";

// ---------------------------------------------------------------------------------------
// Public types

/** Route families the fuzzer knows; `targets.routes` may restrict a run to some. */
export const ROUTE_FAMILIES = [
  "products",
  "payment-methods",
  "orders.create",
  "orders.list",
  "orders.get",
  "notifications",
  "checkout",
  "sandbox.page",
  "sandbox.action",
  "static",
  "health",
  "unknown",
  "wrong-method",
  "malformed-http",
] as const;
export type RouteFamily = (typeof ROUTE_FAMILIES)[number];

export interface FuzzTargets {
  /** Published products of the key's store (found with GET /v1/products when empty). */
  productIds?: string[];
  /** Published bundles of the key's store (found with GET /v1/products when empty). */
  bundleIds?: string[];
  /** Published items of the key's store priced 0 (free orders). */
  freeProductIds?: string[];
  /** Unpublished (draft) items of the key's store. */
  draftIds?: string[];
  /** Published items of the other store (used with this store's key, and for a foreign order). */
  otherStoreItemIds?: string[];
  /** MIDTRANS_SERVER_KEY, to sign notifications (default `sandbox-server-key`). */
  midtransServerKey?: string;
  /** Only these route families (default: all). */
  routes?: RouteFamily[];
}

export interface FuzzOptions {
  baseUrl: string;
  key: string;
  otherStoreKey: string;
  seed: number;
  count: number;
  concurrency?: number;
  targets?: FuzzTargets;
  /** Per-request timeout (default 20 s). */
  timeoutMs?: number;
  /** Only these indexes (replaying findings); `count` is then ignored. */
  only?: number[];
  /** Called every `progressEvery` requests. */
  onProgress?: (done: number, total: number) => void;
  progressEvery?: number;
}

export type FindingKind =
  | "server-error" // status ≥ 500
  | "no-envelope" // /v1 response, or an error outside the hosted pages, that is not JSON
  | "bad-envelope" // JSON, but not {success, data} / {success:false, error:{code, message}}
  | "no-response" // the socket closed or timed out without an answer
  | "contract"; // a softer rule of docs/api.md (headers, code vs status, leaks, accepted invalid input)

export interface FuzzFinding {
  kind: FindingKind;
  problem: string;
  seed: number;
  /** Index of the request in the run; negative for the setup requests. */
  index: number;
  family: RouteFamily | "setup";
  route: string;
  method: string;
  target: string;
  mutations: string[];
  status?: number;
  code?: string;
  message?: string;
  contentType?: string;
  body: string;
  /** A shell line that sends the same bytes (long bodies are abbreviated). */
  curl: string;
}

export interface FuzzResult {
  seed: number;
  requests: number;
  durationMs: number;
  findings: FuzzFinding[];
  /** "GET /v1/orders/:id 404" → count. */
  statusCounts: Record<string, number>;
  /** Ids of every order a 201 from POST /v1/orders named (setup included). */
  createdOrderIds: string[];
  /** How many 201s POST /v1/orders answered (replays included). */
  created201: number;
  /**
   * The requests that cost this process the most CPU (client and, for an in-process
   * stack, server), and CPU milliseconds by route family: exact with concurrency 1,
   * indicative otherwise.
   */
  costliest: { index: number; cpuMs: number; route: string; tag: string }[];
  cpuByFamily: Record<string, number>;
  /** The slowest requests, slowest first. */
  slowest: { index: number; ms: number; route: string; status: number; mutations: string[] }[];
}

// ---------------------------------------------------------------------------------------
// PRNG: mulberry32, one stream per (seed, index)

function mulberry32(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function streamSeed(seed: number, index: number): number {
  let h = (Math.imul(seed >>> 0, 0x9e3779b1) ^ Math.imul(index + 0x7f4a7c15, 0x85ebca6b)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d) >>> 0;
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

class Rng {
  private readonly next: () => number;
  constructor(seed: number) {
    this.next = mulberry32(seed);
  }
  float(): number {
    return this.next();
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }
  weighted<T>(items: readonly (readonly [T, number])[]): T {
    const total = items.reduce((sum, [, w]) => sum + w, 0);
    let x = this.next() * total;
    for (const [item, w] of items) {
      x -= w;
      if (x < 0) return item;
    }
    return items[items.length - 1]![0];
  }
  uuid(): string {
    const hex = () => Math.floor(this.next() * 16).toString(16);
    const s = Array.from({ length: 32 }, hex);
    s[12] = "4";
    s[16] = "89ab"[Math.floor(this.next() * 4)]!;
    const j = s.join("");
    return `${j.slice(0, 8)}-${j.slice(8, 12)}-${j.slice(12, 16)}-${j.slice(16, 20)}-${j.slice(20)}`;
  }
}

// ---------------------------------------------------------------------------------------
// JSON text with what JSON.stringify cannot express: duplicate keys and raw fragments

class Raw {
  constructor(readonly text: string) {}
}
class Dup {
  constructor(readonly pairs: [string, unknown][]) {}
}

function jsonText(value: unknown): string {
  if (value instanceof Raw) return value.text;
  if (value instanceof Dup) return `{${value.pairs.map(([k, v]) => `${JSON.stringify(k)}:${jsonText(v)}`).join(",")}}`;
  if (Array.isArray(value)) return `[${value.map(jsonText).join(",")}]`;
  if (value !== null && typeof value === "object") {
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}:${jsonText(v)}`)
      .join(",")}}`;
  }
  if (value === undefined) return "null";
  // JSON.stringify writes lone surrogates as \udXXX escapes (well-formed JSON.stringify).
  return JSON.stringify(value);
}

type PathPart = string | number;

function isPlain(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value) && !(value instanceof Raw) && !(value instanceof Dup);
}

function allPaths(value: unknown, prefix: PathPart[] = [], out: PathPart[][] = []): PathPart[][] {
  if (Array.isArray(value)) {
    value.forEach((v, i) => {
      out.push([...prefix, i]);
      allPaths(v, [...prefix, i], out);
    });
  } else if (isPlain(value)) {
    for (const [k, v] of Object.entries(value)) {
      out.push([...prefix, k]);
      allPaths(v, [...prefix, k], out);
    }
  }
  return out;
}

function getAt(root: unknown, path: PathPart[]): unknown {
  let v: any = root;
  for (const p of path) v = v?.[p];
  return v;
}

function parentOf(root: unknown, path: PathPart[]): any {
  return getAt(root, path.slice(0, -1));
}

function setAt(root: unknown, path: PathPart[], value: unknown) {
  parentOf(root, path)[path[path.length - 1]!] = value;
}

function dropAt(root: unknown, path: PathPart[]) {
  const parent = parentOf(root, path);
  const last = path[path.length - 1]!;
  if (Array.isArray(parent)) parent.splice(last as number, 1);
  else delete parent[last];
}

function pathName(path: PathPart[]): string {
  return path.reduce<string>((out, p) => (typeof p === "number" ? `${out}[${p}]` : out ? `${out}.${p}` : p), "") || "body";
}

const clone = <T>(value: T): T => structuredClone(value);

// ---------------------------------------------------------------------------------------
// Value pools

const CONTROL_CHARS: [string, string][] = [
  ["NUL", "\u0000"],
  ["U+0001", "\u0001"],
  ["TAB", "\t"],
  ["LF", "\n"],
  ["U+001F", "\u001f"],
  ["DEL", "\u007f"],
];
const SURROGATES: [string, string][] = [
  ["lone-high-surrogate", "\ud800"],
  ["lone-low-surrogate", "\udfff"],
  ["reversed-surrogates", "\ude00\ud83d"],
];
const ODD_TEXT: [string, string][] = [
  ["emoji", "🛒😀👩‍👩‍👧"],
  ["rtl-override", "\u202eevil\u202c"],
  ["arabic", "مرحبا بالعالم"],
  ["zero-width", "a\u200bb\u200d"],
  ["bom", "\ufeffx"],
  ["line-separator", "a\u2028b"],
  ["nbsp", "\u00a0"],
  ["combining", "e\u0301\u0301\u0301"],
  ["c1-control", "\u0085\u009f"],
  ["sql", "' OR 1=1; --"],
  ["sql-drop", "'); drop table orders; --"],
  ["html", "<script>alert(1)</script>"],
  ["html-attr", '"><img src=x onerror=alert(1)>'],
  ["path-traversal", "../../../../etc/passwd"],
  ["encoded-traversal", "..%2f..%2f..%2fetc%2fpasswd"],
  ["percent", "%00%ff%"],
  ["backslash", "C:\\windows\\system32"],
  ["format-string", "%s%s%s%n"],
  ["template", "${7*7}{{7*7}}"],
  ["json-in-string", '{"a":[1,2,3]}'],
  ["whitespace", "   "],
  ["empty", ""],
];

function longString(rng: Rng): [string, string] {
  const n = rng.pick([65, 101, 129, 256, 2049, 10_000, 66_000, 70_000]);
  const unit = rng.pick(["a", "é", "😀", "\u0001"]);
  const label = unit === "\u0001" ? "U+0001" : unit === "😀" ? "emoji" : unit === "é" ? "latin1" : "ascii";
  return [`long-${n}-${label}`, unit.repeat(Math.ceil(n / unit.length)).slice(0, n)];
}

function numberValue(rng: Rng): [string, unknown] {
  return rng.pick<[string, unknown]>([
    ["0", 0],
    ["-1", -1],
    ["1.5", 1.5],
    ["1e308", new Raw("1e308")],
    ["-1e308", new Raw("-1e308")],
    ["1e309", new Raw("1e309")],
    ["1e21", 1e21],
    ["2^31", 2 ** 31],
    ["2^31-1", 2 ** 31 - 1],
    ["-2^31-1", -(2 ** 31) - 1],
    ["2^53+1", new Raw("9007199254740993")],
    ["1001", 1001],
    ["1000", 1000],
    ["1e-7", 1e-7],
    ["-0", new Raw("-0")],
    ["1.0", new Raw("1.0")],
    ["1E2", new Raw("1E2")],
    ["huge-digits", new Raw("9".repeat(400))],
    ["hex-literal", new Raw("0x10")],
    ["NaN-literal", new Raw("NaN")],
    ["Infinity-literal", new Raw("Infinity")],
  ]);
}

function anyValue(rng: Rng): [string, unknown] {
  return rng.pick<[string, unknown]>([
    ["null", null],
    ["true", true],
    ["false", false],
    ["[]", []],
    ["{}", {}],
    ["[[]]", [[]]],
    ["object", { a: 1 }],
    ["string-NaN", "NaN"],
    ["string-Infinity", "Infinity"],
    ["string-1", "1"],
    ["string-number", "100000"],
    ["deep-array-64", new Raw("[".repeat(64) + "]".repeat(64))],
  ]);
}

function deepNest(rng: Rng): [string, Raw] {
  const depth = rng.pick([100, 1_000, 5_000, 10_000, 30_000]);
  return rng.chance(0.5)
    ? [`deep-array-${depth}`, new Raw("[".repeat(depth) + "]".repeat(depth))]
    : [`deep-object-${depth}`, new Raw('{"a":'.repeat(depth) + "1" + "}".repeat(depth))];
}

// ---------------------------------------------------------------------------------------
// The request being built

interface Spec {
  family: RouteFamily;
  route: string;
  method: string;
  path: string;
  /** Already encoded query string without "?", or undefined. */
  query?: string;
  headers: [string, string | Buffer][];
  json?: unknown;
  body?: Buffer;
  contentType?: string;
  chunked?: boolean;
  version: "1.1" | "1.0";
  /** Whole request bytes, for malformed HTTP. */
  raw?: Buffer;
  mutations: string[];
  /** JSON paths mutations already changed ("body" for the whole body). */
  touched: string[];
  /** A mutation that the docs say must be refused: a 2xx is a finding. */
  mustReject?: string;
  acceptHtml: boolean;
  /** The body of a POST /v1/orders is JSON the service may accept: track 201s. */
  createsOrders: boolean;
  /** Idempotency-Key of a group of identical requests that must all name one order. */
  replayGroup?: string;
}

interface OrderRef {
  id: string;
  reference: string;
  amount: number;
  kind: string;
  token?: string;
}

interface Context {
  baseUrl: string;
  host: string;
  port: number;
  key: string;
  otherKey: string;
  serverKey: string;
  products: string[];
  bundles: string[];
  free: string[];
  drafts: string[];
  foreignItems: string[];
  gatewayOrders: OrderRef[];
  bankOrders: OrderRef[];
  freeOrders: OrderRef[];
  foreignOrders: OrderRef[];
  tokens: string[];
}

const METHODS = ["bank_transfer", "qris", "gopay", "shopeepay", "bca_va", "bni_va", "bri_va", "permata_va", "credit_card"];

function header(spec: Spec, name: string, value: string | Buffer) {
  spec.headers.push([name, value]);
}
function setHeader(spec: Spec, name: string, value: string | Buffer | undefined) {
  spec.headers = spec.headers.filter(([n]) => n.toLowerCase() !== name.toLowerCase());
  if (value !== undefined) spec.headers.push([name, value]);
}
function hasHeader(spec: Spec, name: string): boolean {
  return spec.headers.some(([n]) => n.toLowerCase() === name.toLowerCase());
}

function baseSpec(family: RouteFamily, method: string, route: string, path: string): Spec {
  return { family, method, route: `${method} ${route}`, path, headers: [], version: "1.1", mutations: [], touched: [], acceptHtml: false, createsOrders: false };
}

function auth(spec: Spec, key: string) {
  header(spec, "Authorization", `Bearer ${key}`);
}

function encodeQuery(pairs: [string, string][]): string {
  return pairs.map(([k, v]) => `${encodePart(k)}=${encodePart(v)}`).join("&");
}

/** encodeURIComponent, except that a lone surrogate becomes the bytes of its (invalid) UTF-8 form. */
function encodePart(text: string): string {
  let out = "";
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (code >= 0xd800 && code <= 0xdfff) {
      out += `%${(0xe0 | (code >> 12)).toString(16).toUpperCase()}%${(0x80 | ((code >> 6) & 0x3f)).toString(16).toUpperCase()}%${(0x80 | (code & 0x3f)).toString(16).toUpperCase()}`;
    } else out += encodeURIComponent(ch);
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Valid requests

function validBuyer(rng: Rng) {
  return rng.pick([
    { name: "Budi Santoso", email: "budi@example.co.id", phone: "+6281234567890" },
    { name: "Siti Rahma", email: "siti.rahma+shop@mail.example.com", phone: "081298765432" },
    { name: "Ω Åsa Ñúñez", email: "asa@example.org", phone: "62812000111" },
  ]);
}

function validOrderBody(ctx: Context, rng: Rng): Record<string, unknown> {
  if (ctx.free.length > 0 && rng.chance(0.08)) {
    return { items: [{ product_id: rng.pick(ctx.free), quantity: rng.int(1, 3) }], buyer: validBuyer(rng) };
  }
  const pool = [...ctx.products.map((id) => ["product_id", id] as const), ...ctx.bundles.map((id) => ["bundle_id", id] as const)];
  const n = rng.int(1, Math.min(3, pool.length));
  const chosen = new Set<number>();
  while (chosen.size < n) chosen.add(rng.int(0, pool.length - 1));
  const items = [...chosen].map((i) => ({ [pool[i]![0]]: pool[i]![1], quantity: rng.int(1, 1000) }));
  const body: Record<string, unknown> = { items, buyer: validBuyer(rng), payment_method: rng.pick(METHODS) };
  if (rng.chance(0.4)) {
    body.redirect = {
      success_url: "https://shop.example.com/thanks?o=1",
      return_url: "https://shop.example.com/cart",
      error_url: "http://shop.example.com/oops",
    };
    if (rng.chance(0.3)) delete (body.redirect as Record<string, unknown>).return_url;
  }
  if (rng.chance(0.4)) body.external_id = `ext-${rng.int(1, 1_000_000)}`;
  return body;
}

function signed(ctx: Context, n: Record<string, unknown>) {
  const text = (v: unknown) => (typeof v === "string" ? v : typeof v === "number" ? String(v) : "");
  n.signature_key = createHash("sha512")
    .update(text(n.order_id) + text(n.status_code) + text(n.gross_amount) + ctx.serverKey, "utf8")
    .digest("hex");
}

function validNotification(ctx: Context, rng: Rng): Record<string, unknown> {
  const order = rng.pick(ctx.gatewayOrders);
  const status = rng.weighted<[string, string, string | undefined]>([
    [["pending", "201", undefined], 3],
    [["settlement", "200", undefined], 2],
    [["capture", "200", "accept"], 1],
    [["capture", "200", "challenge"], 1],
    [["deny", "202", undefined], 1],
    [["failure", "202", undefined], 1],
    [["cancel", "202", undefined], 1],
    [["expire", "407", undefined], 1],
    [["refund", "200", undefined], 1],
    [["authorize", "201", undefined], 1],
  ]);
  const n: Record<string, unknown> = {
    transaction_time: "2026-01-02 10:11:12",
    transaction_status: status[0],
    transaction_id: rng.uuid(),
    status_message: "midtrans payment notification",
    status_code: status[1],
    payment_type: rng.pick(["qris", "gopay", "bank_transfer", "credit_card"]),
    order_id: order.reference,
    merchant_id: "G000000000",
    gross_amount: `${order.amount}.00`,
    fraud_status: status[2] ?? "accept",
    currency: "IDR",
  };
  signed(ctx, n);
  return n;
}

// ---------------------------------------------------------------------------------------
// Mutators

/** Strings that make a field invalid under docs/api.md#robustness (control characters, lone surrogates). */
function injectChar(rng: Rng): { label: string; text: string; invalid: boolean } {
  const which = rng.weighted<"control" | "surrogate" | "odd">([
    ["control", 4],
    ["surrogate", 3],
    ["odd", 3],
  ]);
  if (which === "control") {
    const [label, text] = rng.pick(CONTROL_CHARS);
    return { label, text, invalid: true };
  }
  if (which === "surrogate") {
    const [label, text] = rng.pick(SURROGATES);
    return { label, text, invalid: true };
  }
  const [label, text] = rng.pick(ODD_TEXT);
  return { label, text, invalid: false };
}

function mutateString(rng: Rng, original: string, ctx: Context): { label: string; value: unknown; invalid: boolean } {
  const op = rng.weighted<string>([
    ["inject", 6],
    ["replace-odd", 2],
    ["long", 2],
    ["uuid", 2],
    ["url", 1],
    ["number", 1],
    ["any", 1],
  ]);
  switch (op) {
    case "inject": {
      const { label, text, invalid } = injectChar(rng);
      const at = rng.pick(["prefix", "middle", "suffix", "only"] as const);
      const mid = Math.floor(original.length / 2);
      const value =
        at === "prefix" ? text + original : at === "suffix" ? original + text : at === "only" ? text : original.slice(0, mid) + text + original.slice(mid);
      // TAB or LF around the value: trimmed text may still be fine; only "inside" is surely invalid.
      const sure = invalid && (at === "middle" || at === "only" || !/^[\t\n]$/.test(text));
      return { label: `${label}@${at}`, value, invalid: sure && value !== original };
    }
    case "replace-odd": {
      const [label, text] = rng.pick(ODD_TEXT);
      return { label, value: text, invalid: false };
    }
    case "long": {
      const [label, text] = longString(rng);
      return { label, value: text, invalid: label.endsWith("U+0001") };
    }
    case "uuid": {
      const [label, text] = rng.pick<[string, string]>([
        ["random-uuid", rng.uuid()],
        ["nil-uuid", "00000000-0000-0000-0000-000000000000"],
        ["uppercase-uuid", (ctx.products[0] ?? rng.uuid()).toUpperCase()],
        ["short-uuid", rng.uuid().slice(0, 35)],
        ["uuid-extra", `${rng.uuid()}0`],
        ["uuid-braces", `{${rng.uuid()}}`],
        ["uuid-no-dashes", rng.uuid().replace(/-/g, "")],
        ["not-a-uuid", "not-a-uuid"],
        ["uuid-g", rng.uuid().replace(/^./, "g")],
        ["draft-id", ctx.drafts[0] ?? rng.uuid()],
        ["foreign-item-id", ctx.foreignItems[0] ?? rng.uuid()],
        ["bundle-id", ctx.bundles[0] ?? rng.uuid()],
        ["product-id", ctx.products[0] ?? rng.uuid()],
      ]);
      return { label, value: text, invalid: false };
    }
    case "url": {
      const [label, text] = rng.pick<[string, string]>([
        ["javascript-url", "javascript:alert(1)"],
        ["data-url", "data:text/html,<b>x</b>"],
        ["scheme-only", "http://"],
        ["space-host", "https://exa mple.com/"],
        ["ftp-url", "ftp://example.com/x"],
        ["bad-port", "http://[::1]:99999/"],
        ["relative-url", "/thanks"],
        ["ipv6-url", "http://[::1]/x"],
        ["userinfo-url", "https://user:pass@example.com/"],
        ["idn-url", "https://bücher.example/ü?q=ü"],
        ["url-2049", `https://example.com/${"a".repeat(2030)}`],
      ]);
      return { label, value: text, invalid: false };
    }
    case "number": {
      const [label, value] = numberValue(rng);
      return { label: `number:${label}`, value, invalid: true };
    }
    default: {
      const [label, value] = anyValue(rng);
      return { label: `retype:${label}`, value, invalid: typeof value !== "string" };
    }
  }
}

/** One mutation of a JSON body; returns the top-level field it touched (undefined: the body itself). */
function mutateJson(rng: Rng, spec: Spec, ctx: Context): string | undefined {
  const root = spec.json;
  // A path an earlier mutation touched stays as that mutation left it (so what it
  // means, e.g. "must be refused", still holds): nothing at, above or below it.
  const related = (a: string, b: string) => a === b || a.startsWith(`${b}.`) || a.startsWith(`${b}[`) || b.startsWith(`${a}.`) || b.startsWith(`${a}[`);
  const paths = allPaths(root).filter((p) => !spec.touched.some((t) => related(pathName(p), t)));
  const touch = (path: PathPart[]) => spec.touched.push(pathName(path));
  const op = rng.weighted<string>([
    ["string", 10],
    ["number", 3],
    ["drop", 2],
    ["dup-key", 1],
    ["retype", 2],
    ["unknown-field", 1],
    ["deep", 1],
    ["items", spec.family === "orders.create" ? 4 : 0],
    ["root", 1],
  ]);
  const strings = paths.filter((p) => typeof getAt(root, p) === "string");
  const numbers = paths.filter((p) => typeof getAt(root, p) === "number");
  if (op === "string" && strings.length > 0) {
    const path = rng.pick(strings);
    const m = mutateString(rng, getAt(root, path) as string, ctx);
    setAt(root, path, m.value);
    touch(path);
    spec.mutations.push(`${pathName(path)}=${m.label}`);
    if (m.invalid) spec.mustReject ??= `${pathName(path)}=${m.label}`;
    return String(path[0]);
  }
  if (op === "number" && numbers.length > 0) {
    const path = rng.pick(numbers);
    const [label, value] = numberValue(rng);
    setAt(root, path, value);
    touch(path);
    spec.mutations.push(`${pathName(path)}=${label}`);
    if (String(path[path.length - 1]) === "quantity" && !["1000", "1.0", "1E2"].includes(label)) spec.mustReject ??= `${pathName(path)}=${label}`;
    return String(path[0]);
  }
  if (op === "drop" && paths.length > 0) {
    const path = rng.pick(paths);
    dropAt(root, path);
    // Array indexes after it shift: the whole parent counts as touched.
    touch(typeof path[path.length - 1] === "number" ? path.slice(0, -1) : path);
    spec.mutations.push(`drop:${pathName(path)}`);
    return String(path[0]);
  }
  const objects = [[] as PathPart[], ...paths].filter((p) => isPlain(p.length ? getAt(root, p) : root));
  if (op === "dup-key" && objects.length > 0) {
    const path = rng.pick(objects);
    const obj = (path.length ? getAt(root, path) : root) as Record<string, unknown>;
    const keys = Object.keys(obj);
    const free = keys.filter((key) => !spec.touched.some((t) => related(pathName([...path, key]), t)));
    if (free.length > 0) {
      const k = rng.pick(free);
      const [label, other] = anyValue(rng);
      const first = rng.chance(0.5);
      const pairs: [string, unknown][] = Object.entries(obj).flatMap(([key, v]): [string, unknown][] =>
        key === k ? (first ? [[key, other], [key, v]] : [[key, v], [key, other]]) : [[key, v]],
      );
      const dup = new Dup(pairs);
      if (path.length) setAt(root, path, dup);
      else spec.json = dup;
      touch(path.length ? path : ["body"]);
      spec.mutations.push(`dup-key:${pathName([...path, k])}:${first ? "valid-last" : `last=${label}`}`);
      // Valid value last: JSON.parse keeps the last, so the body means what it meant.
      return first ? undefined : String([...path, k][0]);
    }
  }
  if (op === "retype" && paths.length > 0) {
    const path = rng.pick(paths);
    const [label, value] = rng.chance(0.3) ? numberValue(rng) : anyValue(rng);
    const before = getAt(root, path);
    setAt(root, path, value);
    touch(path);
    spec.mutations.push(`retype:${pathName(path)}=${label}`);
    const typeOf = (v: unknown) => (v instanceof Raw ? "number" : v === null ? "null" : Array.isArray(v) ? "array" : typeof v);
    if (typeOf(before) !== typeOf(value) && typeOf(before) !== "object") spec.mustReject ??= `retype:${pathName(path)}=${label}`;
    return String(path[0]);
  }
  if (op === "unknown-field" && objects.length > 0) {
    const path = rng.pick(objects);
    const obj = (path.length ? getAt(root, path) : root) as Record<string, unknown>;
    const name = rng.pick(["x_fuzz", "__proto__", "constructor", "toString", "ID", "Items", "buyer\u0000", "\ud800", ""]);
    // JSON.parse makes "__proto__" an own property; write it as text so it really is one here too.
    const dup = new Dup([...Object.entries(obj), [name, { polluted: true }]]);
    if (path.length) setAt(root, path, dup);
    else spec.json = dup;
    touch(path.length ? path : ["body"]);
    spec.mutations.push(`unknown-field:${pathName(path)}.${JSON.stringify(name)}`);
    spec.mustReject ??= `unknown-field:${pathName(path)}.${JSON.stringify(name)}`;
    return path.length ? String(path[0]) : name;
  }
  if (op === "deep") {
    const [label, raw] = deepNest(rng);
    const path = paths.length > 0 && (rng.chance(0.7) || spec.touched.length > 0) ? rng.pick(paths) : undefined;
    if (!path && spec.touched.length > 0) return undefined;
    if (path) setAt(root, path, raw);
    else spec.json = raw;
    touch(path ?? ["body"]);
    spec.mutations.push(`${path ? pathName(path) : "body"}=${label}`);
    spec.mustReject ??= `${path ? pathName(path) : "body"}=${label}`;
    return path ? String(path[0]) : undefined;
  }
  if (op === "items" && isPlain(root) && Array.isArray(root.items) && !spec.touched.some((t) => related("items", t))) {
    const items = root.items as Record<string, unknown>[];
    if (!isPlain(items[0])) {
      if (items.length > 0) items[0] = { product_id: ctx.products[0], quantity: 1 };
      else items.push({ product_id: ctx.products[0], quantity: 1 });
    }
    const first = items[0]!;
    const what = rng.pick([
      "empty",
      "51",
      "1001",
      "dup-item",
      "dup-item-uppercase",
      "both-ids",
      "no-id",
      "bundle-as-product",
      "product-as-bundle",
      "draft",
      "foreign",
      "many-distinct",
      "object-not-array",
      "null-item",
    ]);
    const repeat = (n: number) => Array.from({ length: n }, () => clone(first));
    switch (what) {
      case "empty":
        root.items = [];
        break;
      case "51":
        root.items = repeat(51);
        break;
      case "1001":
        root.items = repeat(1001);
        break;
      case "dup-item":
        items.push(clone(first));
        break;
      case "dup-item-uppercase": {
        const copy = clone(first);
        for (const k of ["product_id", "bundle_id"]) if (typeof copy[k] === "string") copy[k] = copy[k].toUpperCase();
        items.push(copy);
        break;
      }
      case "both-ids":
        first.product_id = ctx.products[0];
        first.bundle_id = ctx.bundles[0] ?? ctx.products[0];
        break;
      case "no-id":
        delete first.product_id;
        delete first.bundle_id;
        break;
      case "bundle-as-product":
        delete first.bundle_id;
        first.product_id = ctx.bundles[0] ?? rng.uuid();
        break;
      case "product-as-bundle":
        delete first.product_id;
        first.bundle_id = ctx.products[0];
        break;
      case "draft":
        delete first.bundle_id;
        first.product_id = ctx.drafts[0] ?? rng.uuid();
        break;
      case "foreign":
        delete first.bundle_id;
        first.product_id = ctx.foreignItems[0] ?? rng.uuid();
        break;
      case "many-distinct":
        root.items = Array.from({ length: rng.pick([50, 51]) }, () => ({ product_id: rng.uuid(), quantity: 1 }));
        break;
      case "object-not-array":
        root.items = first;
        break;
      case "null-item":
        items.push(null as unknown as Record<string, unknown>);
        break;
    }
    touch(["items"]);
    spec.mutations.push(`items:${what}`);
    if (!["many-distinct"].includes(what)) spec.mustReject ??= `items:${what}`;
    return "items";
  }
  if (spec.touched.length > 0) return undefined; // the body as a whole: only as the first mutation
  // root: replace the whole body by another JSON value
  const [label, value] = rng.pick<[string, unknown]>([
    ["null", null],
    ["array", [spec.json]],
    ["string", "hello"],
    ["number", 42],
    ["true", true],
    ["empty-object", {}],
  ]);
  spec.json = value;
  spec.mutations.push(`body=${label}`);
  spec.mustReject ??= `body=${label}`;
  return undefined;
}

/** Mutations of the bytes of a JSON body, after serialisation. */
function mutateBodyBytes(rng: Rng, spec: Spec): string | undefined {
  const text = spec.body!.toString("utf8");
  // Where bytes go inside a string value: right after the opening quote of a random one.
  const starts = [...text.matchAll(/"([^"\\]{0,64})":"/g)].map((m) => ({ at: m.index + m[0].length, key: m[1]! }));
  const spot = starts.length > 0 ? rng.pick(starts) : undefined;
  const splice = (bytes: number[]) =>
    spot ? Buffer.concat([Buffer.from(text.slice(0, spot.at)), Buffer.from(bytes), Buffer.from(text.slice(spot.at))]) : Buffer.from(bytes);
  const op = rng.pick([
    "truncate",
    "trailing-garbage",
    "bom",
    "invalid-utf8",
    "overlong-utf8",
    "cesu-surrogate",
    "empty",
    "whitespace-only",
    "single-quotes",
    "comment",
    "pad-64k",
    "nul-byte",
    "two-documents",
  ]);
  let out: Buffer;
  switch (op) {
    case "truncate":
      out = spec.body!.subarray(0, rng.int(0, Math.max(0, spec.body!.length - 1)));
      break;
    case "trailing-garbage":
      out = Buffer.from(`${text}garbage`);
      break;
    case "bom":
      out = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), spec.body!]);
      break;
    case "invalid-utf8":
      out = splice([0xff, 0xfe]);
      break;
    case "overlong-utf8":
      out = splice([0xc0, 0x80]);
      break;
    case "cesu-surrogate":
      out = splice([0xed, 0xa0, 0x80]);
      break;
    case "empty":
      out = Buffer.alloc(0);
      break;
    case "whitespace-only":
      out = Buffer.from(" \n\t ");
      break;
    case "single-quotes":
      out = Buffer.from(text.replace(/"/g, "'"));
      break;
    case "comment":
      out = Buffer.from(`/* hi */${text}`);
      break;
    case "pad-64k":
      out = Buffer.concat([spec.body!, Buffer.from(" ".repeat(Math.max(0, rng.pick([64 * 1024 - spec.body!.length, 64 * 1024 - spec.body!.length + 1, 70_000]))))]);
      break;
    case "nul-byte":
      out = Buffer.concat([spec.body!, Buffer.from([0])]);
      break;
    default:
      out = Buffer.from(text + text);
  }
  spec.body = out;
  const inString = ["invalid-utf8", "overlong-utf8", "cesu-surrogate"].includes(op);
  spec.mutations.push(`bytes:${op}${inString && spot ? `@${spot.key}` : ""}`);
  // Whitespace up to 64 KiB and a BOM are arguable; everything else is not JSON (or not UTF-8).
  const refused = op === "pad-64k" ? out.length > 64 * 1024 : op !== "bom";
  if (refused) spec.mustReject ??= `bytes:${op}${inString && spot ? `@${spot.key}` : ""}`;
  return inString ? spot?.key : undefined;
}

function mutateContentType(rng: Rng, spec: Spec) {
  const value = rng.pick([
    undefined,
    "text/plain",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x",
    "application/json; charset=utf-16",
    "application/json; charset=latin1",
    "APPLICATION/JSON",
    "application/json;",
    "application/jsonx",
    "application/problem+json",
    "application/json, text/plain",
    "",
    "*/*",
    "application/json\u0001",
  ]);
  spec.contentType = value;
  spec.mutations.push(`content-type=${value === undefined ? "none" : JSON.stringify(value)}`);
}

function mutateAuth(rng: Rng, spec: Spec, ctx: Context) {
  const key = ctx.key;
  const [label, value] = rng.pick<[string, string | Buffer | undefined]>([
    ["none", undefined],
    ["basic", "Basic dXNlcjpwYXNz"],
    ["bearer-empty", "Bearer"],
    ["bearer-space", "Bearer "],
    ["lowercase-scheme", `bearer ${key}`],
    ["uppercase-scheme", `BEARER ${key}`],
    ["double-space", `Bearer  ${key}`],
    ["tab", `Bearer\t${key}`],
    ["trailing-space", `Bearer ${key} `],
    ["extra-token", `Bearer ${key} extra`],
    ["token-scheme", `Token ${key}`],
    ["no-scheme", key],
    ["truncated-key", `Bearer ${key.slice(0, -1)}`],
    ["key-plus-x", `Bearer ${key}x`],
    ["test-prefix", `Bearer ${key.replace("sk_live_", "sk_test_")}`],
    ["long-token-8k", `Bearer sk_live_${"A".repeat(8_000)}`],
    ["utf8-token", Buffer.from(`Bearer sk_live_${"é".repeat(40)}`, "utf8")],
    ["latin1-token", Buffer.from(`Bearer sk_live_${"\xe9".repeat(40)}`, "latin1")],
    ["other-store-key", `Bearer ${ctx.otherKey}`],
    ["sql-token", "Bearer ' OR 1=1 --"],
  ]);
  setHeader(spec, "Authorization", value);
  if (rng.chance(0.05)) {
    header(spec, "Authorization", rng.pick(["Bearer nope", `Bearer ${key}`]));
    spec.mutations.push("auth:duplicate-header");
  }
  spec.mutations.push(`auth:${label}`);
  return label;
}

function mutateHeaders(rng: Rng, spec: Spec) {
  const op = rng.weighted<string>([
    ["request-id", 3],
    ["idempotency-key", spec.family === "orders.create" ? 4 : 0],
    ["accept", 2],
    ["many-headers", 1],
    ["huge-header", 1],
    ["http10", 1],
    ["expect-continue", spec.body ? 1 : 0],
    ["chunked", spec.body ? 1 : 0],
    ["odd-value", 1],
  ]);
  switch (op) {
    case "request-id": {
      const [label, value] = rng.pick<[string, string | Buffer]>([
        ["valid", "fuzz-req-1"],
        ["128", "r".repeat(128)],
        ["129", "r".repeat(129)],
        ["8k", "r".repeat(8_000)],
        ["spaces", "a b c"],
        ["html", "<script>x</script>"],
        ["utf8", Buffer.from("żółć-😀", "utf8")],
        ["latin1", Buffer.from("\xe9\xff", "latin1")],
        ["empty", ""],
        ["crlf-escaped", "a%0d%0aSet-Cookie: x=1"],
        ["DEL", "a\x7fb"],
      ]);
      setHeader(spec, "X-Request-Id", value);
      if (rng.chance(0.2)) header(spec, "X-Request-Id", "second-id");
      spec.mutations.push(`x-request-id:${label}`);
      return;
    }
    case "idempotency-key": {
      const [label, value] = rng.pick<[string, string | Buffer]>([
        ["pool", `fuzz-key-${rng.int(1, 12)}`],
        ["pool", `fuzz-key-${rng.int(1, 12)}`],
        ["empty", ""],
        ["1", "k"],
        ["255", "k".repeat(255)],
        ["256", "k".repeat(256)],
        ["8k", "k".repeat(8_000)],
        ["utf8", Buffer.from("kunci-😀-ü", "utf8")],
        ["latin1", Buffer.from("cl\xe9", "latin1")],
        ["spaces", "   "],
        ["DEL", "k\x7fk"],
        ["sql", "'; drop table idempotency_keys; --"],
      ]);
      setHeader(spec, "Idempotency-Key", value);
      if (rng.chance(0.1)) header(spec, "Idempotency-Key", "second");
      spec.mutations.push(`idempotency-key:${label}`);
      if (label === "256" || label === "8k") spec.mustReject ??= `idempotency-key:${label}`;
      return;
    }
    case "accept": {
      const value = rng.pick(["text/html", "application/json", "*/*", "application/xml", "", "text/html;q=0.1, application/json", "image/png", "garbage/;;;"]);
      setHeader(spec, "Accept", value);
      spec.acceptHtml = /text\/html/.test(value);
      spec.mutations.push(`accept=${JSON.stringify(value)}`);
      return;
    }
    case "many-headers": {
      const n = rng.pick([50, 100, 1_000]);
      for (let i = 0; i < n; i++) header(spec, `X-Fuzz-${i}`, "v");
      spec.mutations.push(`headers:${n}`);
      return;
    }
    case "huge-header": {
      const n = rng.pick([8_000, 15_000, 17_000, 40_000]);
      header(spec, "X-Fuzz-Big", "b".repeat(n));
      spec.mutations.push(`header-bytes:${n}`);
      return;
    }
    case "http10":
      spec.version = "1.0";
      spec.mutations.push("http/1.0");
      return;
    case "expect-continue":
      header(spec, "Expect", "100-continue");
      spec.mutations.push("expect:100-continue");
      return;
    case "chunked":
      spec.chunked = true;
      spec.mutations.push("transfer-encoding:chunked");
      return;
    default: {
      const [label, name, value] = rng.pick<[string, string, string | Buffer]>([
        ["x-forwarded-for", "X-Forwarded-For", "1.2.3.4, ::1"],
        ["cookie", "Cookie", "a=".padEnd(4_000, "c")],
        ["content-encoding-gzip", "Content-Encoding", "gzip"],
        ["content-encoding-weird", "Content-Encoding", "br, zstd, x"],
        ["range", "Range", "bytes=0-1"],
        ["if-none-match", "If-None-Match", '"*"'],
        ["origin", "Origin", "https://evil.example"],
        ["utf8-ua", "User-Agent", Buffer.from("😀", "utf8")],
      ]);
      header(spec, name, value);
      spec.mutations.push(`header:${label}`);
    }
  }
}

function mutateQueryInts(rng: Rng, spec: Spec, pairs: [string, string][], names: string[]): string | undefined {
  const op = rng.weighted<string>([
    ["value", 6],
    ["repeat", 2],
    ["unknown", 1],
    ["raw", 2],
    ["long", 1],
  ]);
  const name = rng.pick(names);
  if (op === "value") {
    const value = rng.pick([
      "",
      "0",
      "1",
      "50",
      "51",
      "1.5",
      "10abc",
      "-1",
      "1e2",
      "０",
      " 1",
      "1 ",
      "+1",
      "0x10",
      "9999999999",
      "99999999999",
      "1000000001",
      "00000000001",
      "NaN",
      "Infinity",
      "\u0000",
      "\ud800",
      "😀",
      "<script>",
    ]);
    const i = pairs.findIndex(([k]) => k === name);
    if (i >= 0) pairs[i]![1] = value;
    else pairs.push([name, value]);
    spec.mutations.push(`query:${name}=${JSON.stringify(value)}`);
    return;
  }
  if (op === "repeat") {
    pairs.push([name, "1"], [name, "2"]);
    spec.mutations.push(`query:repeat-${name}`);
    return;
  }
  if (op === "unknown") {
    pairs.push([rng.pick(["foo", "limit[]", "__proto__", "LIMIT", "status[0]"]), "1"]);
    spec.mutations.push("query:unknown");
    return;
  }
  if (op === "long") {
    const n = rng.pick([2_000, 10_000, 20_000]);
    pairs.push(["pad", "p".repeat(n)]);
    spec.mutations.push(`query:long-${n}`);
    return;
  }
  const raw = rng.pick([
    `${name}=%ZZ`,
    `${name}=%`,
    `${name}=%E0%A4%A`,
    `${name}=%ED%A0%80`,
    `${name}=%C0%80`,
    `${name}=%00`,
    `${name}`,
    `=1`,
    `&&&`,
    `${name}=1&${name}`,
    `${name}=1;${name}=2`,
    `${name}=1%26${name}=2`,
  ]);
  spec.mutations.push(`query:raw:${raw}`);
  return raw;
}

/**
 * Writes the query string and decides, from the query as the server will parse it
 * (URLSearchParams, folded as Koa 3 folds it), whether docs/api.md#robustness makes it INVALID_REQUEST:
 * `limit`/`offset` strict integers in range, given at most once; `status` a known one.
 */
function finishQuery(spec: Spec, pairs: [string, string][], raws: string[] = []) {
  const parts = [encodeQuery(pairs), ...raws].filter((p) => p);
  spec.query = parts.length > 0 ? parts.join("&") : undefined;
  if (spec.family !== "products" && spec.family !== "orders.list") return;
  const params = new URLSearchParams(spec.query ?? "");
  const query: Record<string, string | string[]> = {};
  for (const key of params.keys()) {
    const values = params.getAll(key);
    query[key] = values.length <= 1 ? values[0]! : values;
  }
  const integer = (name: string, min: number, max: number) => {
    const value = query[name];
    if (value === undefined) return true;
    if (Array.isArray(value)) return false;
    return /^[0-9]{1,10}$/.test(value) && Number(value) >= min && Number(value) <= max;
  };
  const statusOk =
    spec.family !== "orders.list" ||
    query.status === undefined ||
    (typeof query.status === "string" && ["pending", "paid", "failed", "expired", "cancelled", "refunded"].includes(query.status));
  if (!integer("limit", 1, 50)) spec.mustReject ??= `query limit=${JSON.stringify(query.limit)}`;
  else if (!integer("offset", 0, 1_000_000_000)) spec.mustReject ??= `query offset=${JSON.stringify(query.offset)}`;
  else if (!statusOk) spec.mustReject ??= `query status=${JSON.stringify(query.status)}`;
}

/** An order id as it might appear in a path. */
function orderIdVariant(rng: Rng, ctx: Context): { label: string; id: string; own: boolean; foreign: boolean } {
  const own = () => rng.pick([...ctx.gatewayOrders, ...ctx.bankOrders, ...ctx.freeOrders]).id;
  const [label, id, isOwn, isForeign] = rng.weighted<[string, string, boolean, boolean]>([
    [["own", own(), true, false], 8],
    [["foreign-order", ctx.foreignOrders[0]?.id ?? rng.uuid(), false, ctx.foreignOrders.length > 0], 2],
    [["uppercase-own", own().toUpperCase(), true, false], 1],
    [["random-uuid", rng.uuid(), false, false], 2],
    [["nil-uuid", "00000000-0000-0000-0000-000000000000", false, false], 1],
    [["not-uuid", "not-a-uuid", false, false], 1],
    [["short", own().slice(0, 35), false, false], 1],
    [["long", own() + "0", false, false], 1],
    [["sql", encodePart("1' or '1'='1"), false, false], 1],
    [["traversal", "..%2f..%2fproducts", false, false], 1],
    [["dotdot", "..", false, false], 1],
    [["nul", "%00", false, false], 1],
    [["encoded-surrogate", "%ED%A0%80", false, false], 1],
    [["bad-percent", "%E0%A4%A", false, false], 1],
    [["percent-only", "%", false, false], 1],
    [["emoji", encodePart("😀"), false, false], 1],
    [["reference", encodePart(ctx.gatewayOrders[0]?.reference ?? "SO-X"), false, false], 1],
    [["long-8k", "a".repeat(8_000), false, false], 1],
    [["encoded-own", encodePart(own()).replace(/-/g, "%2D"), true, false], 1],
  ]);
  return { label, id, own: isOwn, foreign: isForeign };
}

// ---------------------------------------------------------------------------------------
// Generators, one per route family

function genProducts(rng: Rng, ctx: Context, family: "products" | "payment-methods" | "orders.list"): Spec {
  const path = family === "products" ? "/v1/products" : family === "payment-methods" ? "/v1/payment-methods" : "/v1/orders";
  const spec = baseSpec(family, "GET", path, path);
  auth(spec, ctx.key);
  const pairs: [string, string][] = [];
  if (family !== "payment-methods" && rng.chance(0.6)) pairs.push(["limit", String(rng.int(1, 50))]);
  if (family !== "payment-methods" && rng.chance(0.4)) pairs.push(["offset", String(rng.int(0, 30))]);
  if (family === "orders.list" && rng.chance(0.4)) pairs.push(["status", rng.pick(["pending", "paid", "failed", "expired", "cancelled", "refunded"])]);
  const raws: string[] = [];
  const n = rng.int(0, 3);
  for (let i = 0; i < n; i++) {
    const what = rng.weighted<string>([
      ["query", family === "payment-methods" ? 1 : 5],
      ["status", family === "orders.list" ? 2 : 0],
      ["auth", 2],
      ["headers", 2],
      ["body", 1],
      ["path", 1],
    ]);
    if (what === "query") {
      const raw = mutateQueryInts(rng, spec, pairs, ["limit", "offset"]);
      if (raw !== undefined) raws.push(raw);
    } else if (what === "status") {
      const value = rng.pick(["PAID", "paid ", "unknown", "", "pending\u0000", "\ud800", "paid,pending", "' or 1=1 --"]);
      pairs.push(["status", value]);
      spec.mutations.push(`query:status=${JSON.stringify(value)}`);
    } else if (what === "auth") mutateAuth(rng, spec, ctx);
    else if (what === "headers") mutateHeaders(rng, spec);
    else if (what === "body") {
      spec.json = { limit: 1 };
      spec.contentType = "application/json";
      const kind = rng.pick(["json", "not-json", "deep", "control-char"]);
      if (kind === "not-json") spec.body = Buffer.from("{not json");
      if (kind === "deep") spec.json = deepNest(rng)[1];
      if (kind === "control-char") spec.json = { note: "a\u0000b" };
      spec.mutations.push(`get-with-body:${kind}`);
    } else {
      const variant = rng.pick([`${path}/`, `${path}//`, path.toUpperCase(), `${path};x=1`, `${path}%2F`, `/v1//${path.slice(4)}`, `${path}/..`, `${path}.json`]);
      spec.path = variant;
      spec.mutations.push(`path:${variant}`);
    }
  }
  finishQuery(spec, pairs, raws);
  return spec;
}

function genCreate(rng: Rng, ctx: Context): Spec {
  const spec = baseSpec("orders.create", "POST", "/v1/orders", "/v1/orders");
  auth(spec, ctx.key);
  spec.json = validOrderBody(ctx, rng);
  spec.contentType = "application/json";
  spec.createsOrders = true;
  if (rng.chance(0.05)) {
    // A replay group: the same key with the same valid body, sent again and again (and
    // concurrently): every 201 must name one order, and replays say so.
    const group = rng.int(1, 6);
    spec.json = validOrderBody(ctx, new Rng(streamSeed(group, -1)));
    setHeader(spec, "Idempotency-Key", `fuzz-replay-${group}`);
    spec.replayGroup = `fuzz-replay-${group}`;
    spec.mutations.push(`idempotent-replay:${group}`);
    return spec;
  }
  if (rng.chance(0.15)) setHeader(spec, "Idempotency-Key", `fuzz-key-${rng.int(1, 12)}`);
  const n = rng.weighted<number>([
    [0, 1],
    [1, 5],
    [2, 3],
    [3, 1],
  ]);
  const afterSerialise: (() => void)[] = [];
  for (let i = 0; i < n; i++) {
    const what = rng.weighted<string>([
      ["json", 12],
      ["bytes", 2],
      ["content-type", 1],
      ["auth", 2],
      ["headers", 3],
    ]);
    if (what === "json") mutateJson(rng, spec, ctx);
    else if (what === "bytes") afterSerialise.push(() => mutateBodyBytes(rng, spec));
    else if (what === "content-type") mutateContentType(rng, spec);
    else if (what === "auth") mutateAuth(rng, spec, ctx);
    else afterSerialise.push(() => mutateHeaders(rng, spec));
  }
  spec.body = Buffer.from(jsonText(spec.json), "utf8");
  for (const step of afterSerialise) step();
  return spec;
}

function genGet(rng: Rng, ctx: Context): Spec {
  const variant = orderIdVariant(rng, ctx);
  const spec = baseSpec("orders.get", "GET", "/v1/orders/:id", `/v1/orders/${variant.id}`);
  spec.mutations.push(`id:${variant.label}`);
  auth(spec, ctx.key);
  let authLabel: string | undefined;
  const n = rng.int(0, 2);
  for (let i = 0; i < n; i++) {
    const what = rng.weighted<string>([
      ["auth", 3],
      ["other-store", 3],
      ["headers", 2],
      ["query", 1],
    ]);
    if (what === "auth") authLabel = mutateAuth(rng, spec, ctx);
    else if (what === "other-store") {
      setHeader(spec, "Authorization", `Bearer ${ctx.otherKey}`);
      spec.mutations.push("auth:other-store-key");
      authLabel = "other-store-key";
    } else if (what === "headers") mutateHeaders(rng, spec);
    else {
      spec.query = rng.pick(["x=1", "order_id=abc", "limit=1&limit=2", "%ZZ"]);
      spec.mutations.push(`query:${spec.query}`);
    }
  }
  // Another store's key on this store's order, or this store's key on another's: never 2xx (404).
  if ((authLabel === "other-store-key" && variant.own) || (variant.foreign && authLabel === undefined)) {
    spec.mustReject ??= "another store's order (must be 404)";
  }
  return spec;
}

/**
 * The fields of a Midtrans notification the order service reads. Midtrans sends many
 * more (va_numbers, settlement_time, …) and adds new ones: those are ignored, so odd
 * text or unknown names there are not something to refuse.
 */
const NOTIFICATION_FIELDS_READ = new Set(["order_id", "status_code", "gross_amount", "signature_key", "transaction_status", "fraud_status"]);

function genNotification(rng: Rng, ctx: Context): Spec {
  const spec = baseSpec("notifications", "POST", "/v1/payments/notifications/midtrans", "/v1/payments/notifications/midtrans");
  const n = validNotification(ctx, rng);
  spec.json = n;
  spec.contentType = "application/json";
  const count = rng.weighted<number>([
    [0, 1],
    [1, 5],
    [2, 3],
    [3, 1],
  ]);
  const after: (() => void)[] = [];
  let resign = rng.chance(0.75);
  let signatureBroken = false;
  for (let i = 0; i < count; i++) {
    const what = rng.weighted<string>([
      ["order_id", 5],
      ["gross_amount", 3],
      ["status", 2],
      ["signature", 2],
      ["json", 4],
      ["bytes", 1],
      ["content-type", 1],
      ["headers", 1],
      ["key-auth", 1],
    ]);
    if (!isPlain(spec.json)) break;
    const body = spec.json;
    if (what === "order_id") {
      const [label, value] = rng.weighted<[string, unknown]>([
        [["bank-order-reference", ctx.bankOrders[0]?.reference ?? "SO-UNKNOWN00"], 2],
        [["free-order-reference", ctx.freeOrders[0]?.reference ?? "SO-UNKNOWN00"], 1],
        [["foreign-order-reference", ctx.foreignOrders[0]?.reference ?? "SO-UNKNOWN00"], 1],
        [["unknown-reference", "SO-ZZZZZZZZZZZZ"], 2],
        [["lowercase-reference", String(body.order_id).toLowerCase()], 1],
        [["order-uuid", ctx.gatewayOrders[0]?.id ?? rng.uuid()], 1],
        [["lone-surrogate", `${String(body.order_id)}\ud800`], 2],
        [["lone-surrogate-only", "\udc00"], 1],
        [["NUL", `${String(body.order_id)}\u0000`], 2],
        [["U+0001", `SO-\u0001`], 1],
        [["DEL", `${String(body.order_id)}\u007f`], 1],
        [["emoji", "SO-😀"], 1],
        [["rtl", "\u202eSO-1"], 1],
        [["sql", "' OR 1=1 --"], 1],
        [["long-70k", "S".repeat(rng.pick([1_000, 60_000]))], 1],
        [["number", 12345], 1],
        [["empty", ""], 1],
        [["null", null], 1],
      ]);
      body.order_id = value;
      spec.mutations.push(`order_id=${label}`);
      if (label !== "foreign-order-reference") {
        // docs/api.md#robustness, docs/payments.md#notifications: a signed notification whose order_id is no known gateway
        // order's reference is 404; an unsigned one 401. Either way a 4xx, never 2xx/5xx.
        // (Another store's gateway order is a real one: notifications are not per store.)
        spec.mustReject ??= `order_id=${label}`;
      }
      if ((label === "foreign-order-reference" || label === "bank-order-reference") && !signatureBroken) resign = true;
    } else if (what === "gross_amount") {
      const [label, value] = rng.pick<[string, unknown]>([
        ["no-decimals", String(body.gross_amount).replace(".00", "")],
        ["one-cent", String(body.gross_amount).replace(".00", ".01")],
        ["three-decimals", String(body.gross_amount).replace(".00", ".000")],
        ["exponent", "1e5"],
        ["leading-space", ` ${String(body.gross_amount)}`],
        ["number-type", Number.parseFloat(String(body.gross_amount))],
        ["negative", `-${String(body.gross_amount)}`],
        ["huge", "99999999999999999999.00"],
        ["13-digits", "9999999999999.00"],
        ["NaN", "NaN"],
        ["comma", String(body.gross_amount).replace(".", ",")],
        ["NUL", `${String(body.gross_amount)}\u0000`],
        ["float-1e308", new Raw("1e308")],
        ["empty", ""],
      ]);
      body.gross_amount = value;
      spec.mutations.push(`gross_amount=${label}`);
    } else if (what === "status") {
      const field = rng.pick(["transaction_status", "fraud_status", "status_code"]);
      const [label, value] = rng.pick<[string, unknown]>([
        ["SETTLEMENT", "SETTLEMENT"],
        ["unknown", "exploded"],
        ["empty", ""],
        ["null", null],
        ["number", 200],
        ["NUL", "settlement\u0000"],
        ["lone-surrogate", "settlement\ud800"],
        ["long", "s".repeat(10_000)],
        ["array", ["settlement"]],
      ]);
      body[field] = value;
      spec.mutations.push(`${field}=${label}`);
      if (/NUL|surrogate/.test(label)) spec.mustReject ??= `${field}=${label}`;
    } else if (what === "signature") {
      const sig = typeof body.signature_key === "string" ? body.signature_key : "";
      const [label, value] = rng.pick<[string, unknown]>([
        ["uppercase", sig.toUpperCase()],
        ["truncated", sig.slice(0, -1)],
        ["flipped", (sig[0] === "a" ? "b" : "a") + sig.slice(1)],
        ["empty", ""],
        ["non-hex", "z".repeat(128)],
        ["wrong-key", createHash("sha512").update(`${String(body.order_id)}${String(body.status_code)}${String(body.gross_amount)}nope`).digest("hex")],
        ["number", 1],
        ["long", sig.repeat(100)],
        ["lone-surrogate", `${sig.slice(0, -1)}\ud800`],
        ["missing", undefined],
      ]);
      if (value === undefined) delete body.signature_key;
      else body.signature_key = value;
      resign = false;
      signatureBroken = true;
      spec.mutations.push(`signature=${label}`);
      if (label !== "uppercase") spec.mustReject ??= `signature=${label}`;
    } else if (what === "json") {
      const before = spec.mustReject;
      const orderIdBefore = body.order_id;
      const field = mutateJson(rng, spec, ctx);
      if (field === "signature_key") {
        resign = false;
        signatureBroken = true;
      }
      // gross_amount and fraud_status are read leniently (a number, an unknown value):
      // only control characters and lone surrogates there must be refused.
      const lenient = (field === "gross_amount" || field === "fraud_status") && !/NUL|U\+00|TAB|LF|DEL|surrogate/.test(spec.mutations.at(-1)!);
      if (field !== undefined && (!NOTIFICATION_FIELDS_READ.has(field) || lenient)) {
        spec.mustReject = before;
      }
      if (field === "signature_key") spec.mustReject ??= "signature_key changed";
      if (field === "order_id" && isPlain(spec.json) && spec.json.order_id !== orderIdBefore) {
        spec.mustReject ??= "order_id is no known reference";
      }
    } else if (what === "bytes") {
      after.push(() => {
        const before = spec.mustReject;
        const field = mutateBodyBytes(rng, spec);
        if (field !== undefined && !NOTIFICATION_FIELDS_READ.has(field)) spec.mustReject = before;
      });
    } else if (what === "content-type") {
      mutateContentType(rng, spec);
    } else if (what === "headers") {
      after.push(() => mutateHeaders(rng, spec));
    } else {
      mutateAuth(rng, spec, ctx);
    }
  }
  if (resign && isPlain(spec.json)) {
    signed(ctx, spec.json);
    spec.mutations.push("re-signed");
  }
  spec.body = Buffer.from(jsonText(spec.json), "utf8");
  for (const step of after) step();
  return spec;
}

function genCheckout(rng: Rng, ctx: Context): Spec {
  const variant = orderIdVariant(rng, ctx);
  const spec = baseSpec("checkout", "GET", "/checkout/:id", `/checkout/${variant.id}`);
  spec.mutations.push(`id:${variant.label}`);
  if (rng.chance(0.6)) {
    header(spec, "Accept", "text/html,application/xhtml+xml");
    spec.acceptHtml = true;
  }
  if (rng.chance(0.4)) mutateHeaders(rng, spec);
  if (rng.chance(0.2)) {
    spec.query = rng.pick(["x=1", "%ZZ", "a=%00"]);
    spec.mutations.push(`query:${spec.query}`);
  }
  return spec;
}

function tokenVariant(rng: Rng, ctx: Context): [string, string] {
  const token = ctx.tokens.length > 0 ? rng.pick(ctx.tokens) : "tok";
  return rng.weighted<[string, string]>([
    [["valid", token], 6],
    [["unknown", "tok_" + "x".repeat(30)], 2],
    [["201-chars", "t".repeat(201)], 1],
    [["bad-chars", encodePart("tok*<>")], 1],
    [["encoded-surrogate", "%ED%A0%80"], 1],
    [["nul", "%00"], 1],
    [["bad-percent", "%E0%A4%A"], 1],
    [["traversal", "..%2F..%2Fv1%2Fproducts"], 1],
    [["uppercase", token.toUpperCase()], 1],
    [["emoji", encodePart("😀")], 1],
  ]);
}

function genSandbox(rng: Rng, ctx: Context, action: boolean): Spec {
  const [label, token] = tokenVariant(rng, ctx);
  const outcome = rng.pick(["pay", "fail"]);
  const spec = action
    ? baseSpec("sandbox.action", "POST", `/sandbox/pay/:token/${outcome}`, `/sandbox/pay/${token}/${outcome}`)
    : baseSpec("sandbox.page", "GET", "/sandbox/pay/:token", `/sandbox/pay/${token}`);
  spec.mutations.push(`token:${label}`);
  if (rng.chance(0.6)) {
    header(spec, "Accept", "text/html");
    spec.acceptHtml = true;
  }
  if (action && rng.chance(0.5)) {
    const body = rng.pick(["", "a=1", "{\"x\":1}", "\u0000", "x".repeat(70_000)]);
    spec.body = Buffer.from(body);
    spec.contentType = rng.pick(["application/x-www-form-urlencoded", "application/json", "text/plain"]);
    spec.mutations.push(`form-body:${body.length > 20 ? `${body.length}-bytes` : JSON.stringify(body)}`);
  }
  if (rng.chance(0.3)) mutateHeaders(rng, spec);
  return spec;
}

function genStatic(rng: Rng, ctx: Context): Spec {
  const [route, path] = rng.pick<[string, string]>([
    ["/docs", "/docs"],
    ["/v1/openapi.json", "/v1/openapi.json"],
    ["/docs/init.js", "/docs/init.js"],
    ["/docs/assets/:file", "/docs/assets/swagger-ui.css"],
    ["/docs/assets/:file", "/docs/assets/favicon-32x32.png"],
    ["/docs/assets/:file", "/docs/assets/..%2F..%2Fpackage.json"],
    ["/docs/assets/:file", "/docs/assets/%2e%2e%2fpackage.json"],
    ["/docs/assets/:file", "/docs/assets/package.json"],
    ["/docs/assets/:file", "/docs/assets/%ED%A0%80"],
    ["/docs/assets/:file", "/docs/assets/%00"],
    ["/sandbox/snap.js", "/sandbox/snap.js"],
    ["/metrics", "/metrics"],
  ]);
  const spec = baseSpec("static", "GET", route, path);
  if (rng.chance(0.4)) mutateHeaders(rng, spec);
  if (rng.chance(0.3)) {
    spec.query = rng.pick(["x=1", "%ZZ", "url=http://evil", "a=%00"]);
    spec.mutations.push(`query:${spec.query}`);
  }
  if (rng.chance(0.2)) mutateAuth(rng, spec, ctx);
  return spec;
}

function genHealth(rng: Rng, _ctx: Context): Spec {
  const path = rng.pick(["/healthz", "/readyz"]);
  const spec = baseSpec("health", "GET", path, path);
  if (rng.chance(0.4)) mutateHeaders(rng, spec);
  if (rng.chance(0.2)) {
    spec.query = rng.pick(["verbose=1", "%ZZ", "a=%00"]);
    spec.mutations.push(`query:${spec.query}`);
  }
  return spec;
}

function genUnknown(rng: Rng, ctx: Context): Spec {
  const path = rng.pick([
    "/",
    "/v1",
    "/v1/",
    "/v1/unknown",
    "/v2/products",
    "/v1/products/123/variants",
    "/v1/orders/x/y",
    "/v1/payments",
    "/v1/payments/notifications/xendit",
    "/v1/payments/notifications/midtrans/extra",
    "/favicon.ico",
    "/.env",
    "/.git/config",
    "/checkout",
    "/checkout/",
    "/sandbox/pay",
    "/sandbox/pay/",
    "/dashboard/%ED%A0%80",
    "/%ED%A0%80",
    "/%00",
    "/%",
    "/..%2f..%2fetc%2fpasswd",
    "/v1/%2e%2e/%2e%2e/etc/passwd",
    `/${encodePart("😀")}`,
    `/${"a".repeat(8_000)}`,
    "/v1/orders%00",
    "//v1/products",
    "/v1/products?",
    "*",
  ]);
  const method = rng.pick(["GET", "GET", "POST", "DELETE"]);
  const spec = baseSpec("unknown", method, "(unknown)", path);
  spec.mutations.push(`path:${path.length > 80 ? `${path.slice(0, 20)}…(${path.length})` : path}`);
  if (rng.chance(0.5)) auth(spec, ctx.key);
  if (method === "POST") {
    spec.body = Buffer.from(rng.pick(['{"a":1}', "{", "\u0000"]));
    spec.contentType = "application/json";
  }
  if (rng.chance(0.3)) mutateHeaders(rng, spec);
  return spec;
}

function genWrongMethod(rng: Rng, ctx: Context): Spec {
  const own = ctx.gatewayOrders[0]?.id ?? rng.uuid();
  const [route, path, allowed] = rng.pick<[string, string, string[]]>([
    ["/v1/products", "/v1/products", ["GET", "HEAD", "POST"]],
    ["/v1/payment-methods", "/v1/payment-methods", ["GET", "HEAD"]],
    ["/v1/orders", "/v1/orders", ["GET", "HEAD", "POST"]],
    ["/v1/orders/:id", `/v1/orders/${own}`, ["GET", "HEAD"]],
    ["/v1/payments/notifications/midtrans", "/v1/payments/notifications/midtrans", ["POST"]],
    ["/checkout/:id", `/checkout/${own}`, ["GET", "HEAD"]],
    ["/sandbox/pay/:token", `/sandbox/pay/${ctx.tokens[0] ?? "tok"}`, ["GET", "HEAD"]],
    ["/sandbox/pay/:token/pay", `/sandbox/pay/${ctx.tokens[0] ?? "tok"}/pay`, ["POST"]],
    ["/healthz", "/healthz", ["GET", "HEAD"]],
    ["/readyz", "/readyz", ["GET", "HEAD"]],
    ["/docs", "/docs", ["GET", "HEAD"]],
    ["/v1/openapi.json", "/v1/openapi.json", ["GET", "HEAD"]],
  ]);
  const candidates = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD", "TRACE", "PROPFIND", "MKCOL", "LINK", "PURGE", "QUERY", "SEARCH"].filter(
    (m) => !allowed.includes(m),
  );
  const method = rng.pick(candidates);
  const spec = baseSpec("wrong-method", method, route, path);
  spec.mutations.push(`method:${method}`);
  if (rng.chance(0.7)) auth(spec, ctx.key);
  if (!["GET", "HEAD", "OPTIONS", "TRACE"].includes(method) && rng.chance(0.6)) {
    spec.body = Buffer.from('{"a":1}');
    spec.contentType = "application/json";
  }
  if (rng.chance(0.2)) mutateHeaders(rng, spec);
  return spec;
}

function genMalformed(rng: Rng, ctx: Context): Spec {
  const host = `Host: ${ctx.host}:${ctx.port}\r\n`;
  const bearer = `Authorization: Bearer ${ctx.key}\r\n`;
  const [label, raw] = rng.pick<[string, string | Buffer]>([
    ["http-9.9", `GET /v1/products HTTP/9.9\r\n${host}${bearer}Connection: close\r\n\r\n`],
    ["http-0.9", "GET /v1/products\r\n\r\n"],
    ["double-space", `GET  /v1/products  HTTP/1.1\r\n${host}Connection: close\r\n\r\n`],
    ["unknown-method", `FOO /v1/products HTTP/1.1\r\n${host}Connection: close\r\n\r\n`],
    ["lowercase-method", `get /v1/products HTTP/1.1\r\n${host}Connection: close\r\n\r\n`],
    ["binary-garbage", Buffer.from([0, 1, 2, 3, 0xff, 0xfe, 13, 10, 13, 10])],
    ["tls-hello", Buffer.from("16030100a5010000a10303", "hex")],
    ["no-host", `GET /v1/products HTTP/1.1\r\n${bearer}Connection: close\r\n\r\n`],
    ["two-hosts", `GET /v1/products HTTP/1.1\r\n${host}${host}${bearer}Connection: close\r\n\r\n`],
    ["header-no-colon", `GET /v1/products HTTP/1.1\r\n${host}BrokenHeader\r\nConnection: close\r\n\r\n`],
    ["header-space-before-colon", `GET /v1/products HTTP/1.1\r\n${host}X-A : b\r\nConnection: close\r\n\r\n`],
    ["header-nul", Buffer.from(`GET /v1/products HTTP/1.1\r\n${host}X-A: a\u0000b\r\nConnection: close\r\n\r\n`, "latin1")],
    ["header-U+0001", Buffer.from(`GET /v1/products HTTP/1.1\r\n${host}${bearer}X-Request-Id: a\u0001b\r\nConnection: close\r\n\r\n`, "latin1")],
    ["header-bare-lf", `GET /v1/products HTTP/1.1\n${host}Connection: close\n\n`],
    ["header-bare-cr", `GET /v1/products HTTP/1.1\r\n${host}X-A: a\rb\r\nConnection: close\r\n\r\n`],
    ["header-obs-fold", `GET /v1/products HTTP/1.1\r\n${host}X-A: a\r\n b\r\nConnection: close\r\n\r\n`],
    ["header-name-utf8", Buffer.from(`GET /v1/products HTTP/1.1\r\n${host}X-É: 1\r\nConnection: close\r\n\r\n`, "utf8")],
    ["headers-over-16k", `GET /v1/products HTTP/1.1\r\n${host}${bearer}X-Big: ${"b".repeat(20_000)}\r\nConnection: close\r\n\r\n`],
    ["request-line-over-16k", `GET /v1/products?pad=${"p".repeat(20_000)} HTTP/1.1\r\n${host}${bearer}Connection: close\r\n\r\n`],
    ["many-small-headers", `GET /v1/products HTTP/1.1\r\n${host}${bearer}${Array.from({ length: 3_000 }, (_, i) => `X-${i}: v\r\n`).join("")}Connection: close\r\n\r\n`],
    ["content-length-abc", `POST /v1/orders HTTP/1.1\r\n${host}${bearer}Content-Type: application/json\r\nContent-Length: abc\r\nConnection: close\r\n\r\n{}`],
    ["content-length-negative", `POST /v1/orders HTTP/1.1\r\n${host}${bearer}Content-Type: application/json\r\nContent-Length: -1\r\nConnection: close\r\n\r\n{}`],
    ["two-content-lengths", `POST /v1/orders HTTP/1.1\r\n${host}${bearer}Content-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3\r\nConnection: close\r\n\r\n{}`],
    ["cl-and-te", `POST /v1/orders HTTP/1.1\r\n${host}${bearer}Content-Type: application/json\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n0\r\n\r\n`],
    ["bad-chunk-size", `POST /v1/orders HTTP/1.1\r\n${host}${bearer}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`],
    ["te-unknown", `POST /v1/orders HTTP/1.1\r\n${host}${bearer}Content-Type: application/json\r\nTransfer-Encoding: gzip\r\nConnection: close\r\n\r\n{}`],
    ["huge-content-length", `POST /v1/orders HTTP/1.1\r\n${host}${bearer}Content-Type: application/json\r\nContent-Length: 99999999999999999999\r\nConnection: close\r\n\r\n{}`],
    ["absolute-uri", `GET http://${ctx.host}:${ctx.port}/v1/products HTTP/1.1\r\n${host}${bearer}Connection: close\r\n\r\n`],
    ["absolute-uri-other-host", `GET http://evil.example/v1/products HTTP/1.1\r\n${host}${bearer}Connection: close\r\n\r\n`],
    ["space-in-path", `GET /v1/pro ducts HTTP/1.1\r\n${host}Connection: close\r\n\r\n`],
    ["raw-utf8-path", Buffer.from(`GET /v1/orders/ü😀 HTTP/1.1\r\n${host}${bearer}Connection: close\r\n\r\n`, "utf8")],
    ["raw-high-bytes-path", Buffer.from(`GET /checkout/\xff\xfe HTTP/1.1\r\n${host}Connection: close\r\n\r\n`, "latin1")],
    ["asterisk-form", `OPTIONS * HTTP/1.1\r\n${host}Connection: close\r\n\r\n`],
    ["connect-form", `CONNECT ${ctx.host}:${ctx.port} HTTP/1.1\r\n${host}Connection: close\r\n\r\n`],
  ]);
  const spec = baseSpec("malformed-http", "RAW", "(malformed)", "(raw)");
  spec.raw = typeof raw === "string" ? Buffer.from(raw, "latin1") : raw;
  spec.mutations.push(`raw:${label}`);
  return spec;
}

const FAMILY_WEIGHTS: [RouteFamily, number][] = [
  ["products", 7],
  ["payment-methods", 3],
  ["orders.create", 32],
  ["orders.list", 7],
  ["orders.get", 10],
  ["notifications", 14],
  ["checkout", 6],
  ["sandbox.page", 3],
  ["sandbox.action", 2],
  ["static", 3],
  ["health", 2],
  ["unknown", 3],
  ["wrong-method", 4],
  ["malformed-http", 3],
];

function generate(ctx: Context, seed: number, index: number, families: Set<RouteFamily>): Spec {
  const rng = new Rng(streamSeed(seed, index));
  const family = rng.weighted(FAMILY_WEIGHTS.filter(([f]) => families.has(f)));
  switch (family) {
    case "products":
    case "payment-methods":
    case "orders.list":
      return genProducts(rng, ctx, family);
    case "orders.create":
      return genCreate(rng, ctx);
    case "orders.get":
      return genGet(rng, ctx);
    case "notifications":
      return genNotification(rng, ctx);
    case "checkout":
      return genCheckout(rng, ctx);
    case "sandbox.page":
      return genSandbox(rng, ctx, false);
    case "sandbox.action":
      return genSandbox(rng, ctx, true);
    case "static":
      return genStatic(rng, ctx);
    case "health":
      return genHealth(rng, ctx);
    case "unknown":
      return genUnknown(rng, ctx);
    case "wrong-method":
      return genWrongMethod(rng, ctx);
    default:
      return genMalformed(rng, ctx);
  }
}

// ---------------------------------------------------------------------------------------
// The wire

function requestBytes(ctx: Context, spec: Spec): Buffer {
  if (spec.raw) return spec.raw;
  const target = spec.path + (spec.query !== undefined ? `?${spec.query}` : "");
  const lines: Buffer[] = [Buffer.from(`${spec.method} ${target} HTTP/${spec.version}\r\nHost: ${ctx.host}:${ctx.port}\r\n`, "latin1")];
  const headers = [...spec.headers];
  if (spec.contentType !== undefined && !hasHeader(spec, "content-type")) headers.push(["Content-Type", spec.contentType]);
  const body = spec.body ?? (spec.json !== undefined ? Buffer.from(jsonText(spec.json), "utf8") : undefined);
  let payload = body ?? Buffer.alloc(0);
  if (body !== undefined) {
    if (spec.chunked) {
      headers.push(["Transfer-Encoding", "chunked"]);
      const chunks: Buffer[] = [];
      for (let at = 0; at < body.length; at += 4096) {
        const part = body.subarray(at, at + 4096);
        chunks.push(Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from("\r\n"));
      }
      chunks.push(Buffer.from("0\r\n\r\n"));
      payload = Buffer.concat(chunks);
    } else headers.push(["Content-Length", String(body.length)]);
  }
  headers.push(["Connection", "close"]);
  for (const [name, value] of headers) {
    lines.push(Buffer.from(`${name}: `, "latin1"), typeof value === "string" ? Buffer.from(value, "latin1") : value, Buffer.from("\r\n"));
  }
  lines.push(Buffer.from("\r\n"), payload);
  return Buffer.concat(lines);
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** Parses one HTTP/1.x response (skipping 1xx); undefined while incomplete. */
function parseResponse(data: Buffer, head: boolean, ended: boolean): Answer | undefined {
  let offset = 0;
  for (;;) {
    const end = data.indexOf("\r\n\r\n", offset);
    if (end < 0) return undefined;
    const lines = data.subarray(offset, end).toString("latin1").split("\r\n");
    const match = /^HTTP\/\d\.\d (\d{3})/.exec(lines[0] ?? "");
    if (!match) return ended ? { status: 0, headers: {}, body: data } : undefined;
    const status = Number(match[1]);
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(":");
      if (colon <= 0) continue;
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = headers[name] !== undefined ? `${headers[name]}, ${value}` : value;
    }
    const bodyStart = end + 4;
    if (status >= 100 && status < 200) {
      offset = bodyStart;
      continue;
    }
    if (head || status === 204 || status === 304) return { status, headers, body: Buffer.alloc(0) };
    if (headers["transfer-encoding"]?.toLowerCase().includes("chunked")) {
      const parts: Buffer[] = [];
      let at = bodyStart;
      for (;;) {
        const lineEnd = data.indexOf("\r\n", at);
        if (lineEnd < 0) return ended ? { status, headers, body: Buffer.concat(parts) } : undefined;
        const size = Number.parseInt(data.subarray(at, lineEnd).toString("latin1"), 16);
        if (!Number.isFinite(size)) return { status, headers, body: Buffer.concat(parts) };
        if (size === 0) return { status, headers, body: Buffer.concat(parts) };
        if (data.length < lineEnd + 2 + size + 2) return ended ? { status, headers, body: Buffer.concat(parts) } : undefined;
        parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
        at = lineEnd + 2 + size + 2;
      }
    }
    if (headers["content-length"] !== undefined) {
      const length = Number(headers["content-length"]);
      if (data.length - bodyStart >= length) return { status, headers, body: data.subarray(bodyStart, bodyStart + length) };
      return ended ? { status, headers, body: data.subarray(bodyStart) } : undefined;
    }
    return ended ? { status, headers, body: data.subarray(bodyStart) } : undefined;
  }
}

function exchange(ctx: Context, bytes: Buffer, head: boolean, timeoutMs: number): Promise<Answer | { error: string }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let settled = false;
    const socket = net.connect({ host: ctx.host, port: ctx.port });
    const finish = (result: Answer | { error: string }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => {
      const partial = parseResponse(Buffer.concat(chunks), head, true);
      finish(partial && partial.status > 0 ? partial : { error: `no answer within ${timeoutMs} ms` });
    }, timeoutMs);
    socket.on("connect", () => {
      socket.write(bytes, () => {});
    });
    socket.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      const answer = parseResponse(Buffer.concat(chunks), head, false);
      if (answer) finish(answer);
    });
    const ended = (error?: Error) => {
      const answer = parseResponse(Buffer.concat(chunks), head, true);
      if (answer) finish(answer);
      else finish({ error: error ? `${(error as NodeJS.ErrnoException).code ?? error.message}, no answer` : "connection closed without an answer" });
    };
    socket.on("end", () => ended());
    socket.on("close", () => ended());
    socket.on("error", (error) => ended(error));
  });
}

// ---------------------------------------------------------------------------------------
// Checks

const CODES = new Set<string>(ERROR_CODES);
const STATUS_OF: Record<string, number[]> = {
  INVALID_REQUEST: [400, 413, 415, 431],
  UNAUTHORIZED: [401],
  PLAN_REQUIRED: [403],
  FORBIDDEN: [403],
  NOT_FOUND: [404],
  METHOD_NOT_ALLOWED: [405],
  CONFLICT: [409],
  RATE_LIMITED: [429],
  INTERNAL_ERROR: [500],
  SERVICE_UNAVAILABLE: [503],
};
const LEAK = /(\n\s+at \S|\.ts:\d+|node_modules|ECONNREFUSED|ECONNRESET|SQLSTATE|syntax error at|violates|duplicate key|relation "|postgres|127\.0\.0\.1:\d+|localhost:\d+|\[object Object\]|undefined is not|Cannot read prop|TypeError|RangeError)/i;

function envelopeProblem(json: unknown): string | undefined {
  if (json === null || typeof json !== "object" || Array.isArray(json)) return "body is not a JSON object";
  const body = json as Record<string, unknown>;
  if (typeof body.success !== "boolean") return "`success` is not a boolean";
  if (body.success) return "data" in body ? undefined : "success without `data`";
  const error = body.error as Record<string, unknown> | undefined;
  if (error === null || typeof error !== "object") return "failure without an `error` object";
  if (typeof error.code !== "string") return "`error.code` is not a string";
  if (typeof error.message !== "string") return "`error.message` is not a string";
  if (!CODES.has(error.code)) return `unknown error code ${error.code}`;
  if (error.details !== undefined) {
    if (!Array.isArray(error.details)) return "`error.details` is not an array";
    for (const d of error.details) {
      if (d === null || typeof d !== "object" || typeof d.field !== "string" || typeof d.message !== "string") {
        return "`error.details[]` is not {field, message}";
      }
    }
  }
  return undefined;
}

function shellQuote(bytes: Buffer | string): string {
  const buf = typeof bytes === "string" ? Buffer.from(bytes, "latin1") : bytes;
  let plain = true;
  for (const b of buf) if (b < 0x20 || b > 0x7e || b === 0x27 || b === 0x5c) plain = false;
  if (plain) return `'${buf.toString("latin1")}'`;
  let out = "$'";
  for (const b of buf) {
    if (b === 0x27) out += "\\'";
    else if (b === 0x5c) out += "\\\\";
    else if (b >= 0x20 && b <= 0x7e) out += String.fromCharCode(b);
    else out += `\\x${b.toString(16).padStart(2, "0")}`;
  }
  return `${out}'`;
}

function abbreviate(buf: Buffer, max: number): Buffer {
  if (buf.length <= max) return buf;
  return Buffer.concat([buf.subarray(0, max), Buffer.from(`…[${buf.length} bytes, sha256 ${createHash("sha256").update(buf).digest("hex").slice(0, 12)}]`)]);
}

function curlLine(ctx: Context, spec: Spec): string {
  if (spec.raw) return `printf '%s' ${shellQuote(abbreviate(spec.raw, 600))} | nc ${ctx.host} ${ctx.port}`;
  const target = spec.path + (spec.query !== undefined ? `?${spec.query}` : "");
  const parts = ["curl -sS -i --path-as-is"];
  if (spec.version === "1.0") parts.push("--http1.0");
  parts.push(`-X ${spec.method}`);
  for (const [name, value] of spec.headers) {
    const v = typeof value === "string" ? Buffer.from(value, "latin1") : value;
    parts.push(`-H ${shellQuote(Buffer.concat([Buffer.from(`${name}: `), abbreviate(v, 200)]))}`);
  }
  if (spec.contentType !== undefined) parts.push(`-H ${shellQuote(`Content-Type: ${spec.contentType}`)}`);
  else if (spec.body) parts.push(`-H 'Content-Type:'`);
  if (spec.chunked) parts.push(`-H 'Transfer-Encoding: chunked'`);
  const body = spec.body ?? (spec.json !== undefined ? Buffer.from(jsonText(spec.json)) : undefined);
  if (body) parts.push(`--data-binary ${shellQuote(abbreviate(body, 1_500))}`);
  parts.push(shellQuote(`http://${ctx.host}:${ctx.port}${target.length > 300 ? `${target.slice(0, 300)}…` : target}`));
  return parts.join(" ");
}

interface Outcome {
  findings: FuzzFinding[];
  status: number;
  headers?: Record<string, string>;
  json?: any;
}

function makeFinding(
  ctx: Context,
  seed: number,
  index: number,
  spec: Spec,
  kind: FindingKind,
  problem: string,
  extra: Partial<FuzzFinding> = {},
): FuzzFinding {
  const target = spec.raw ? spec.mutations[0]! : spec.path + (spec.query !== undefined ? `?${spec.query}` : "");
  return {
    kind,
    problem,
    seed,
    index,
    family: index < 0 ? "setup" : spec.family,
    route: spec.route,
    method: spec.method,
    target: target.length > 200 ? `${target.slice(0, 200)}…(${target.length})` : target,
    mutations: spec.mutations,
    body: "",
    curl: curlLine(ctx, spec),
    ...extra,
  };
}

function check(ctx: Context, seed: number, index: number, spec: Spec, answer: Answer | { error: string }): Outcome {
  const findings: FuzzFinding[] = [];
  const make = (kind: FindingKind, problem: string, extra: Partial<FuzzFinding> = {}) => makeFinding(ctx, seed, index, spec, kind, problem, extra);
  if ("error" in answer) {
    findings.push(make("no-response", answer.error));
    return { findings, status: 0 };
  }
  const contentType = answer.headers["content-type"] ?? "";
  const text = answer.body.toString("utf8");
  const snippet = text.length > 600 ? `${text.slice(0, 600)}…(${answer.body.length} bytes)` : text;
  let json: any;
  let parsed = false;
  if (/^application\/json\b/i.test(contentType)) {
    try {
      json = JSON.parse(text);
      parsed = true;
    } catch {}
  }
  const extra: Partial<FuzzFinding> = {
    status: answer.status,
    contentType,
    body: snippet,
    code: parsed ? json?.error?.code : undefined,
    message: parsed ? json?.error?.message : undefined,
  };
  const isHead = spec.method === "HEAD";
  const onV1 = !spec.raw && /^\/v1(\/|$|\?)/.test(spec.path);
  const openapi = spec.path === "/v1/openapi.json" && answer.status === 200;
  const pageRoute = !spec.raw && /^\/(checkout|sandbox\/pay)\//.test(spec.path) && spec.acceptHtml;

  if (answer.status >= 500) findings.push(make("server-error", `${answer.status} ${extra.code ?? contentType}`, extra));
  if (answer.status === 0) findings.push(make("no-response", "the answer is not HTTP", extra));

  if (!isHead && answer.status > 0) {
    const jsonType = /^application\/json\b/i.test(contentType);
    if (jsonType && !parsed) findings.push(make("bad-envelope", "Content-Type is JSON but the body does not parse", extra));
    else if (parsed && !openapi) {
      const problem = envelopeProblem(json);
      if (problem) findings.push(make("bad-envelope", problem, extra));
    }
    const needsEnvelope = (onV1 && !openapi) || (answer.status >= 400 && !pageRoute);
    if (needsEnvelope && !parsed) {
      findings.push(
        make("no-envelope", `${answer.status} answered with ${contentType || "no Content-Type"}${answer.body.length === 0 ? " and an empty body" : ""}`, extra),
      );
    }
  }

  // Softer contract checks.
  if (answer.status > 0) {
    if (!answer.headers["x-request-id"]) findings.push(make("contract", "no X-Request-Id header", extra));
    if (answer.status === 401 && !/^Bearer\b/.test(answer.headers["www-authenticate"] ?? "")) findings.push(make("contract", "401 without WWW-Authenticate: Bearer", extra));
    if (answer.status === 405 && !answer.headers.allow) findings.push(make("contract", "405 without Allow", extra));
    if ((answer.status === 429 || answer.status === 503) && !/^\d+$/.test(answer.headers["retry-after"] ?? "")) {
      findings.push(make("contract", `${answer.status} without Retry-After`, extra));
    }
    if (parsed && json?.success === false && typeof json.error?.code === "string") {
      const allowed = STATUS_OF[json.error.code];
      if (allowed && !allowed.includes(answer.status)) findings.push(make("contract", `${json.error.code} with HTTP ${answer.status}`, extra));
      const said = `${json.error.message ?? ""} ${JSON.stringify(json.error.details ?? "")}`;
      if (LEAK.test(said)) findings.push(make("contract", `error message leaks internals: ${LEAK.exec(said)![0]}`, extra));
    }
    if (parsed && json?.success === true && answer.status >= 400) findings.push(make("contract", `success:true with HTTP ${answer.status}`, extra));
    if (parsed && json?.success === false && answer.status < 400) findings.push(make("contract", `success:false with HTTP ${answer.status}`, extra));
    if (answer.status >= 200 && answer.status < 300 && spec.mustReject) {
      findings.push(make("contract", `accepted input the docs refuse (${spec.mustReject})`, extra));
    }
  }
  return { findings, status: answer.status, headers: answer.headers, json };
}

// ---------------------------------------------------------------------------------------
// Setup and the run

function assertLoopback(baseUrl: string): URL {
  const url = new URL(baseUrl);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (!(host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host))) {
    throw new Error(`the fuzzer only talks to loopback addresses, not ${url.hostname}`);
  }
  if (url.protocol !== "http:") throw new Error("the fuzzer speaks plain HTTP/1.1 only");
  return url;
}

export async function runFuzz(options: FuzzOptions): Promise<FuzzResult> {
  const url = assertLoopback(options.baseUrl);
  const targets = options.targets ?? {};
  const timeoutMs = options.timeoutMs ?? 20_000;
  const ctx: Context = {
    baseUrl: options.baseUrl.replace(/\/$/, ""),
    host: url.hostname === "localhost" ? "127.0.0.1" : url.hostname.replace(/^\[|\]$/g, ""),
    port: Number(url.port || 80),
    key: options.key,
    otherKey: options.otherStoreKey,
    serverKey: targets.midtransServerKey ?? "sandbox-server-key",
    products: [...(targets.productIds ?? [])],
    bundles: [...(targets.bundleIds ?? [])],
    free: [...(targets.freeProductIds ?? [])],
    drafts: [...(targets.draftIds ?? [])],
    foreignItems: [...(targets.otherStoreItemIds ?? [])],
    gatewayOrders: [],
    bankOrders: [],
    freeOrders: [],
    foreignOrders: [],
    tokens: [],
  };
  const started = Date.now();
  const findings: FuzzFinding[] = [];
  const statusCounts: Record<string, number> = {};
  const created = new Set<string>();
  let created201 = 0;
  let setupIndex = 0;

  const replays = new Map<string, { ids: Map<string, number>; fresh: number }>();
  const slowest: FuzzResult["slowest"] = [];
  const costliest: FuzzResult["costliest"] = [];
  const cpuByFamily: Record<string, number> = {};
  const send = async (spec: Spec, index: number): Promise<Outcome> => {
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    const answer = await exchange(ctx, requestBytes(ctx, spec), spec.method === "HEAD", spec.raw ? Math.min(timeoutMs, 5_000) : timeoutMs);
    const ms = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    cpuByFamily[spec.family] = (cpuByFamily[spec.family] ?? 0) + cpuMs;
    const tag = spec.mutations.map((m) => m.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/gi, "<uuid>")).join(" | ");
    if (costliest.length < 20 || cpuMs > costliest[costliest.length - 1]!.cpuMs) {
      costliest.push({ index, cpuMs: Math.round(cpuMs * 10) / 10, route: spec.route, tag });
      costliest.sort((a, b) => b.cpuMs - a.cpuMs);
      costliest.length = Math.min(costliest.length, 20);
    }
    const outcome = check(ctx, options.seed, index, spec, answer);
    if (slowest.length < 20 || ms > slowest[slowest.length - 1]!.ms) {
      slowest.push({ index, ms: Math.round(ms), route: spec.route, status: outcome.status, mutations: spec.mutations });
      slowest.sort((a, b) => b.ms - a.ms);
      slowest.length = Math.min(slowest.length, 20);
    }
    findings.push(...outcome.findings);
    const label = `${spec.route} ${outcome.status || "none"}`;
    statusCounts[label] = (statusCounts[label] ?? 0) + 1;
    if (spec.createsOrders && outcome.status === 201) {
      created201++;
      const id = outcome.json?.data?.order?.id;
      if (typeof id === "string") created.add(id);
      if (spec.replayGroup && typeof id === "string") {
        const group = replays.get(spec.replayGroup) ?? { ids: new Map<string, number>(), fresh: 0 };
        group.ids.set(id, group.ids.get(id) ?? index);
        replays.set(spec.replayGroup, group);
        if (outcome.headers?.["idempotent-replayed"] !== "true" && ++group.fresh === 2) {
          findings.push(
            makeFinding(ctx, options.seed, index, spec, "contract", "a repeated Idempotency-Key answered 201 without Idempotent-Replayed: true twice", {
              status: 201,
            }),
          );
        }
        if (group.ids.size === 2) {
          findings.push(
            makeFinding(
              ctx,
              options.seed,
              index,
              spec,
              "contract",
              `one Idempotency-Key with one body made two orders (${[...group.ids.keys()].join(", ")}; indexes ${[...group.ids.values()].join(", ")})`,
              { status: 201 },
            ),
          );
        }
      }
    }
    return outcome;
  };

  // Setup: discover items when none were given, then make the orders the mutations refer to.
  if (ctx.products.length === 0 && ctx.bundles.length === 0) {
    const spec = baseSpec("products", "GET", "/v1/products", "/v1/products");
    auth(spec, ctx.key);
    spec.query = "limit=50";
    const { json, status } = await send(spec, -++setupIndex);
    if (status !== 200) throw new Error(`GET /v1/products answered ${status} during setup`);
    for (const item of json.data.items) (item.type === "bundle" ? ctx.bundles : ctx.products).push(item.id);
  }
  if (ctx.products.length === 0) throw new Error("the fuzzer needs at least one published product");

  const makeOrder = async (key: string, item: Record<string, unknown>, method: string | undefined, into: OrderRef[]) => {
    const spec = baseSpec("orders.create", "POST", "/v1/orders", "/v1/orders");
    auth(spec, key);
    spec.json = { items: [{ ...item, quantity: 1 }], buyer: { name: "Fuzz Setup", email: "setup@example.com", phone: "+628120000000" }, ...(method ? { payment_method: method } : {}) };
    spec.contentType = "application/json";
    spec.createsOrders = true;
    const { status, json } = await send(spec, -++setupIndex);
    if (status !== 201) throw new Error(`setup order (${method ?? "free"}) answered ${status}: ${JSON.stringify(json)}`);
    const order = json.data.order;
    const token = /\/sandbox\/pay\/([^/?#]+)/.exec(order.payment_url ?? "")?.[1];
    into.push({ id: order.id, reference: order.payment_reference, amount: order.amount, kind: json.data.payment.kind, token });
    if (token) ctx.tokens.push(decodeURIComponent(token));
  };
  const product = { product_id: ctx.products[0] };
  for (const method of ["qris", "gopay", "credit_card", "bca_va"]) await makeOrder(ctx.key, product, method, ctx.gatewayOrders);
  if (ctx.bundles[0]) await makeOrder(ctx.key, { bundle_id: ctx.bundles[0] }, "shopeepay", ctx.gatewayOrders);
  await makeOrder(ctx.key, product, "bank_transfer", ctx.bankOrders).catch(() => undefined); // a store without a bank account has none
  if (ctx.free[0]) await makeOrder(ctx.key, { product_id: ctx.free[0] }, undefined, ctx.freeOrders);
  if (ctx.foreignItems[0]) await makeOrder(ctx.otherKey, { product_id: ctx.foreignItems[0] }, "qris", ctx.foreignOrders);
  if (ctx.gatewayOrders.length === 0) throw new Error("setup made no gateway order");

  // The run.
  const families = new Set<RouteFamily>(targets.routes ?? ROUTE_FAMILIES);
  const indexes = options.only ?? Array.from({ length: options.count }, (_, i) => i);
  const concurrency = Math.max(1, options.concurrency ?? 8);
  let next = 0;
  let done = 0;
  const every = options.progressEvery ?? 1_000;
  const worker = async () => {
    while (next < indexes.length) {
      const index = indexes[next++]!;
      let spec: Spec;
      try {
        spec = generate(ctx, options.seed, index, families);
      } catch (error) {
        throw new Error(`the fuzzer failed to build request ${index} of seed ${options.seed}: ${(error as Error).stack}`);
      }
      await send(spec, index);
      done++;
      if (options.onProgress && done % every === 0) options.onProgress(done, indexes.length);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, indexes.length) }, worker));

  return {
    seed: options.seed,
    requests: indexes.length,
    durationMs: Date.now() - started,
    findings,
    statusCounts,
    createdOrderIds: [...created],
    created201,
    slowest,
    costliest,
    cpuByFamily,
  };
}

/** The request that index `index` of `seed` sends, as a shell line (ids from a fresh setup differ). */
export function describeFinding(finding: FuzzFinding): string {
  return [
    `[${finding.kind}] ${finding.problem}`,
    `  route ${finding.route}  target ${finding.target}`,
    `  seed ${finding.seed} index ${finding.index}  mutations: ${finding.mutations.join(" | ") || "(none)"}`,
    `  status ${finding.status ?? "-"} ${finding.contentType ?? ""}  body: ${finding.body.slice(0, 300).replace(/\s+/g, " ")}`,
    `  repro: ${finding.curl.length > 1_000 ? `${finding.curl.slice(0, 1_000)}…` : finding.curl}`,
  ].join("\n");
}

export interface FindingClass {
  key: string;
  kind: FindingKind;
  count: number;
  mutations: Record<string, number>;
  example: FuzzFinding;
  indexes: number[];
}

/** Findings grouped by kind, route, status, code and problem (messages with ids folded). */
export function classifyFindings(findings: FuzzFinding[]): FindingClass[] {
  const classes = new Map<string, FindingClass>();
  for (const f of findings) {
    const problem = f.problem
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, "<uuid>")
      .replace(/\d+/g, "N");
    const key = `${f.kind} | ${f.route} | ${f.status ?? "-"} ${f.code ?? ""} | ${problem}`;
    let c = classes.get(key);
    if (!c) {
      c = { key, kind: f.kind, count: 0, mutations: {}, example: f, indexes: [] };
      classes.set(key, c);
    }
    c.count++;
    if (c.indexes.length < 10) c.indexes.push(f.index);
    for (const m of f.mutations) {
      const label = m.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/gi, "<uuid>");
      c.mutations[label] = (c.mutations[label] ?? 0) + 1;
    }
  }
  const order: FindingKind[] = ["server-error", "no-envelope", "bad-envelope", "no-response", "contract"];
  return [...classes.values()].sort((a, b) => order.indexOf(a.kind) - order.indexOf(b.kind) || b.count - a.count);
}

export function formatClasses(classes: FindingClass[]): string {
  return classes
    .map((c) => {
      const top = Object.entries(c.mutations)
        .sort((a, b) => b[1] - a[1])
        .slice(0, 8)
        .map(([m, n]) => `${m}×${n}`)
        .join(", ");
      return `${c.count}× ${c.key}\n  common mutations: ${top}\n  indexes: ${c.indexes.join(", ")}\n${describeFinding(c.example)
        .split("\n")
        .map((l) => `  ${l}`)
        .join("\n")}`;
    })
    .join("\n\n");
}

// ---------------------------------------------------------------------------------------
// Stack helpers shared by test/e2e/fuzz.test.ts and bench/fuzz.ts

type OrderSql = Sql;

/**
 * A growth store with a bank account, four products (one free, one at the catalog's
 * maximum price, one draft), a bundle, and a second store with a product of its own.
 */
export async function prepareFuzzStores(stack: Pick<Stack, "stores" | "catalog" | "config">) {
  const { createStore, createProduct, createBundle, ItemStatus, Plan } = await import("./stack.js");
  const main = await createStore(stack, Plan.GROWTH, "Fuzz Store");
  const other = await createStore(stack, Plan.SCALE, "Other Fuzz Store", false);
  const cheap = await createProduct(stack, main.storeId, "Kopi Susu", 15_000);
  const mid = await createProduct(stack, main.storeId, "Ebook: Belajar TypeScript 🚀", 249_999);
  const max = await createProduct(stack, main.storeId, "Very Expensive", 1_000_000_000_000);
  const free = await createProduct(stack, main.storeId, "Free Sample", 0);
  const draft = await createProduct(stack, main.storeId, "Draft", 10_000, ItemStatus.DRAFT);
  const bundle = await createBundle(stack, main.storeId, "Paket Hemat", 200_000, [cheap.id, mid.id]);
  const foreign = await createProduct(stack, other.storeId, "Other Store Thing", 30_000);
  const targets: FuzzTargets = {
    productIds: [cheap.id, mid.id, max.id],
    bundleIds: [bundle.id],
    freeProductIds: [free.id],
    draftIds: [draft.id],
    otherStoreItemIds: [foreign.id],
    midtransServerKey: stack.config.MIDTRANS_SERVER_KEY,
  };
  return { key: main.key, storeId: main.storeId, otherStoreKey: other.key, otherStoreId: other.storeId, targets };
}

export interface TableCounts {
  orders: number;
  order_items: number;
  order_status_history: number;
  outbox: number;
  payment_sessions: number;
  idempotency_keys: number;
}

export async function orderTableCounts(sql: OrderSql): Promise<TableCounts> {
  const [row] = await sql`
    select
      (select count(*) from orders)::int as orders,
      (select count(*) from order_items)::int as order_items,
      (select count(*) from order_status_history)::int as order_status_history,
      (select count(*) from outbox)::int as outbox,
      (select count(*) from payment_sessions)::int as payment_sessions,
      (select count(*) from idempotency_keys)::int as idempotency_keys`;
  return row as TableCounts;
}

/**
 * Partial writes in the order service's tables: orders no 201 named, 201s with no
 * order, and orders missing their items, creation history, `order.created` event, a
 * history row for their current status, or whose idempotency record is half done.
 */
export async function partialWrites(sql: OrderSql, createdOrderIds: string[], before: TableCounts): Promise<string[]> {
  const problems: string[] = [];
  const rows = await sql`select id::text as id, status from orders`;
  const inDb = new Set(rows.map((r) => r.id as string));
  const answered = new Set(createdOrderIds);
  if (rows.length - before.orders !== answered.size) {
    problems.push(`orders made: ${rows.length - before.orders}; distinct order ids in 201 answers: ${answered.size}`);
  }
  for (const id of inDb) if (!answered.has(id)) problems.push(`order ${id} is in the database but no 201 named it`);
  for (const id of answered) if (!inDb.has(id)) problems.push(`201 named order ${id}, which is not in the database`);
  const checks: [string, PromiseLike<any[]>][] = [
    ["has no items", sql`select o.id::text as id from orders o where not exists (select 1 from order_items i where i.order_id = o.id)`],
    [
      "has no creation history row",
      sql`select o.id::text as id from orders o where not exists (
        select 1 from order_status_history h where h.order_id = o.id and h.from_status is null and h.to_status = 'pending')`,
    ],
    [
      "has no history row for its current status",
      sql`select o.id::text as id from orders o where o.status <> 'pending' and not exists (
        select 1 from order_status_history h where h.order_id = o.id and h.to_status = o.status)`,
    ],
    [
      "has no order.created outbox event",
      sql`select o.id::text as id from orders o where not exists (
        select 1 from outbox e where e.order_id = o.id and e.event_type = 'order.created')`,
    ],
    [
      "has fewer outbox events than status changes need (2 per change + 1)",
      sql`select o.id::text as id from orders o
        where (select count(*) from outbox e where e.order_id = o.id)
            < 1 + 2 * (select count(*) from order_status_history h where h.order_id = o.id and h.from_status is not null)`,
    ],
    [
      "items do not add up to its subtotal",
      sql`select o.id::text as id from orders o
        where o.subtotal <> (select coalesce(sum(line_total), 0) from order_items i where i.order_id = o.id)`,
    ],
    [
      "idempotency record names an order that does not exist",
      sql`select k.key as id from idempotency_keys k where k.order_id is not null and not exists (select 1 from orders o where o.id = k.order_id)`,
    ],
    ["idempotency record is left in flight (no order, no response)", sql`select k.key as id from idempotency_keys k where k.response is null`],
  ];
  for (const [what, query] of checks) {
    for (const row of await query) problems.push(`${row.id}: ${what}`);
  }
  return problems;
}

/**
 * Builds (without sending) requests `0..count-1` of `seed` against made-up ids, and
 * returns how many bytes they come to: a fast check that every mutator composes.
 */
export function buildOffline(seed: number, count: number): { bytes: number; families: Record<string, number> } {
  const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
  const order = (n: number, kind: string): OrderRef => ({ id: id(n), reference: `SO-TEST${n}AAAAAA`, amount: 15_000, kind, token: `tok${n}` });
  const ctx: Context = {
    baseUrl: "http://127.0.0.1:9",
    host: "127.0.0.1",
    port: 9,
    key: `sk_live_${"a".repeat(40)}`,
    otherKey: `sk_live_${"b".repeat(40)}`,
    serverKey: "sandbox-server-key",
    products: [id(1), id(2)],
    bundles: [id(3)],
    free: [id(4)],
    drafts: [id(5)],
    foreignItems: [id(6)],
    gatewayOrders: [order(10, "gateway"), order(11, "gateway")],
    bankOrders: [order(12, "bank_transfer")],
    freeOrders: [order(13, "none")],
    foreignOrders: [order(14, "gateway")],
    tokens: ["tok10", "tok11"],
  };
  let bytes = 0;
  const families: Record<string, number> = {};
  const all = new Set<RouteFamily>(ROUTE_FAMILIES);
  for (let i = 0; i < count; i++) {
    let spec: Spec;
    try {
      spec = generate(ctx, seed, i, all);
      bytes += requestBytes(ctx, spec).length;
      curlLine(ctx, spec);
    } catch (error) {
      throw new Error(`request ${i} of seed ${seed}: ${(error as Error).stack}`);
    }
    families[spec.family] = (families[spec.family] ?? 0) + 1;
  }
  return { bytes, families };
}

/**
 * runFuzz on a worker thread of its own: the requests are built, sent and checked off
 * the thread that runs an in-process stack, so the two do not queue behind each
 * other on one event loop (and get a CPU share each on a busy machine).
 */
export function runFuzzInWorker(options: FuzzOptions): Promise<FuzzResult> {
  const { onProgress, ...plain } = options;
  return new Promise((resolve, reject) => {
    // The worker loads this TypeScript file through tsx's loader, registered in the worker itself.
    const bootstrap = `import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(import.meta.url)}); })`;
    const worker = new Worker(bootstrap, { eval: true, workerData: { fuzzOptions: plain } });
    let settled = false;
    worker.on("message", (message: { type: string; done?: number; total?: number; result?: FuzzResult; error?: string }) => {
      if (message.type === "progress") onProgress?.(message.done!, message.total!);
      else if (message.type === "result") {
        settled = true;
        resolve(message.result!);
      } else if (message.type === "error") {
        settled = true;
        reject(new Error(message.error));
      }
    });
    worker.once("error", (error) => {
      settled = true;
      reject(error);
    });
    worker.once("exit", (code) => {
      if (!settled) reject(new Error(`the fuzz worker exited with code ${code} before answering`));
    });
  });
}

if (!isMainThread && (workerData as { fuzzOptions?: FuzzOptions } | undefined)?.fuzzOptions) {
  const options = (workerData as { fuzzOptions: FuzzOptions }).fuzzOptions;
  runFuzz({ ...options, onProgress: (done, total) => parentPort!.postMessage({ type: "progress", done, total }) }).then(
    (result) => parentPort!.postMessage({ type: "result", result }),
    (error) => parentPort!.postMessage({ type: "error", error: (error as Error).stack ?? String(error) }),
  );
}
