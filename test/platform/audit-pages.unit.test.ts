// Paging the merged audit log: three services' parts, each listed newest first by
// (micros, seq), read page by page through the cursor.
import test from "ava";
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import { AuditEntrySchema, AuditPositionSchema, type AuditPosition } from "../../gen/audit/v1/audit_pb.js";
import { decodeAuditCursor, encodeAuditCursor, fieldChanges, storeAuditLog, type AuditEntryLike, type AuditSource } from "../../platform/audit-log.js";

/** A service's part as its ListAudit answers: filters, the position bound, newest first. */
function part(name: string, rows: { micros: number; seq: number; actor?: string; action?: string }[]): AuditSource & { asked: number } {
  const entries = rows.map((row) =>
    create(AuditEntrySchema, {
      id: `${name}-${row.seq}`,
      at: timestampFromDate(new Date(row.micros / 1000)),
      actor: row.actor ?? "dewi@toko.example",
      action: row.action ?? "order.cancelled",
      target: `order:${name}-${row.seq}`,
      position: create(AuditPositionSchema, { micros: BigInt(row.micros), seq: BigInt(row.seq) }),
    }),
  );
  const before = (a: AuditPosition, b: AuditPosition) => a.micros < b.micros || (a.micros === b.micros && a.seq < b.seq);
  const source = {
    asked: 0,
    async listAudit(request: { limit: number; before?: AuditPosition; actor: string; action: string }) {
      source.asked++;
      const matching = entries
        .filter((e) => (!request.before || before(e.position!, request.before)) && (!request.actor || e.actor === request.actor) && (!request.action || e.action === request.action))
        .sort((a, b) => (before(a.position!, b.position!) ? 1 : -1));
      return { entries: matching.slice(0, request.limit) };
    },
  };
  return source;
}

async function readAll(sources: Record<string, AuditSource | undefined>, options: { limit: number; actor?: string; action?: string }) {
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const page = await storeAuditLog(sources, "store-1", { ...options, cursor });
    pages.push(page.entries.map((e: AuditEntryLike) => e.id));
    cursor = page.next;
  } while (cursor && pages.length < 50);
  return pages;
}

test("paging the merged log gives every entry once, newest first, ties in the same microsecond included", async (t) => {
  // Several entries share a microsecond within a part (one transaction) and across parts.
  const sources = {
    catalog: part("catalog", [{ micros: 1_000, seq: 1 }, { micros: 3_000, seq: 2 }, { micros: 3_000, seq: 3 }, { micros: 7_000, seq: 4 }]),
    order: part("order", [{ micros: 3_000, seq: 10 }, { micros: 3_000, seq: 11 }, { micros: 5_000, seq: 12 }]),
    webhook: part("webhook", [{ micros: 3_000, seq: 7 }, { micros: 9_000, seq: 8 }]),
  };
  const whole = (await storeAuditLog(sources, "store-1", { limit: 100 })).entries.map((e) => e.id);
  t.deepEqual(whole, ["webhook-8", "catalog-4", "order-12", "catalog-3", "catalog-2", "order-11", "order-10", "webhook-7", "catalog-1"]);
  for (const limit of [1, 2, 3, 4]) {
    const pages = await readAll(sources, { limit });
    t.deepEqual(pages.flat(), whole, `pages of ${limit}`);
    t.true(pages.every((page) => page.length <= limit));
  }
});

test("filters by actor and action hold on every page", async (t) => {
  const sources = {
    catalog: part("catalog", [{ micros: 1_000, seq: 1, actor: "operator", action: "key.created" }, { micros: 2_000, seq: 2, action: "key.revoked" }]),
    order: part("order", [{ micros: 1_500, seq: 1 }, { micros: 2_500, seq: 2, actor: "operator" }, { micros: 3_500, seq: 3, actor: "operator" }]),
  };
  t.deepEqual((await readAll(sources, { limit: 1, actor: "operator" })).flat(), ["order-3", "order-2", "catalog-1"]);
  t.deepEqual((await readAll(sources, { limit: 2, action: "order.cancelled" })).flat(), ["order-3", "order-2", "order-1"]);
});

test("the last page has no next cursor; a part that is down is named and the rest still pages", async (t) => {
  const down: AuditSource = {
    listAudit: async () => {
      throw new ConnectError("down", Code.Unavailable);
    },
  };
  const page = await storeAuditLog({ catalog: part("catalog", [{ micros: 1, seq: 1 }]), order: down, webhook: undefined }, "s", { limit: 5 });
  t.deepEqual(page.entries.map((e) => e.id), ["catalog-1"]);
  t.is(page.next, undefined);
  t.deepEqual(page.unavailable, ["order", "webhook"]);
});

test("a cursor that is not one of this log's is refused naming the cursor", async (t) => {
  const sources = { catalog: part("catalog", []) };
  for (const cursor of ["nonsense", encodeAuditCursor({ micros: 5n, part: "billing", seq: 1n }), Buffer.from("1.catalog.99999999999999999999").toString("base64url")]) {
    const error = await t.throwsAsync(storeAuditLog(sources, "s", { cursor }));
    t.regex(String(error?.message), /cursor/);
  }
  t.deepEqual(decodeAuditCursor(encodeAuditCursor({ micros: 1_700_000_000_000_123n, part: "order", seq: 42n })), { micros: 1_700_000_000_000_123n, part: "order", seq: 42n });
});

test("a settings change lists only the fields that changed, secrets hidden", (t) => {
  t.deepEqual(fieldChanges({ account_number: "0001112223", holder: "Toko", token: "a" }, { account_number: "0009998887", holder: "Toko", token: "b" }, ["token"]), [
    { field: "account_number", before: "0001112223", after: "0009998887" },
    { field: "token", before: "(hidden)", after: "(hidden)" },
  ]);
});
