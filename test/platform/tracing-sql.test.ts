// postgres.js under tracing (platform/tracing.ts traceSql, through connectDb's
// `role`): a span per statement inside a trace, with the parameterised text and never
// a value; a span per transaction around its statements; none outside a trace. Real
// PostgreSQL, a database of the file's own.
import test from "ava";
import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { InMemorySpanExporter } from "@opentelemetry/sdk-trace-base";
import { connectDb, transaction, type Sql } from "../../platform/db.js";
import { startTracing, stopTracing, tracerFor } from "../../platform/tracing.js";
import { createTestDatabase, type TestDatabase } from "../helpers/db.js";

const exporter = new InMemorySpanExporter();
let db: TestDatabase;
let sql: Sql;

test.before(async () => {
  db = await createTestDatabase();
  startTracing({}, { exporter });
  sql = connectDb(db.url, { schema: "public", role: "order", max: 2 });
  await sql`create table items (id int primary key, secret text not null)`;
});
test.beforeEach(() => exporter.reset());
test.after.always(async () => {
  await sql?.end({ timeout: 1 });
  await stopTracing();
  await db?.drop();
});

async function inRoot<T>(work: () => Promise<T>) {
  const span = tracerFor("order").startSpan("root");
  try {
    await context.with(trace.setSpan(ROOT_CONTEXT, span), work);
    return span.spanContext();
  } finally {
    span.end();
  }
}

test.serial("a statement in a trace is a CLIENT span of the role: postgresql, its parameterised text, never a value", async (t) => {
  const fragment = sql`and secret <> ${"nope"}`;
  const root = await inRoot(async () => {
    await sql`insert into items ${sql({ id: 1, secret: "hunter2" })}`;
    await sql`select * from items where id = ${1} ${fragment}`;
  });
  const spans = exporter.getFinishedSpans().filter((span) => span.name !== "root");
  t.deepEqual(spans.map((span) => span.name), ["INSERT", "SELECT"]);
  for (const span of spans) {
    t.is(span.kind, SpanKind.CLIENT);
    t.is(span.resource.attributes["service.name"], "order");
    t.is(span.spanContext().traceId, root.traceId);
    t.is(span.parentSpanContext?.spanId, root.spanId);
    t.is(span.attributes["db.system"], "postgresql");
  }
  t.regex(String(spans[0]!.attributes["db.statement"]), /^insert into items \("id","secret"\)values\(\$1,\$2\)$/);
  t.is(spans[1]!.attributes["db.statement"], "select * from items where id = $1 and secret <> $2");
  const all = JSON.stringify(spans.map((span) => span.attributes));
  t.false(all.includes("hunter2"));
  t.false(all.includes("nope"));
});

test.serial("a transaction is a span around its statements; a failed statement says its SQLSTATE, not its message", async (t) => {
  await inRoot(async () => {
    await sql.begin(async (tx) => {
      await tx`update items set secret = ${"s2"} where id = ${1}`;
      await tx.savepoint(async (inner) => inner`select 1`);
    });
    await t.throwsAsync(sql`insert into items (id, secret) values (${1}, ${"dup"})`);
  });
  const spans = exporter.getFinishedSpans();
  const tx = spans.find((span) => span.name === "transaction")!;
  const update = spans.find((span) => span.name === "UPDATE")!;
  const savepoint = spans.find((span) => span.name === "savepoint")!;
  const inner = spans.find((span) => span.name === "SELECT")!;
  t.is(update.parentSpanContext?.spanId, tx.spanContext().spanId);
  t.is(savepoint.parentSpanContext?.spanId, tx.spanContext().spanId);
  t.is(inner.parentSpanContext?.spanId, savepoint.spanContext().spanId, "a savepoint's statements are traced too");
  const failed = spans.find((span) => span.name === "INSERT")!;
  t.is(failed.status.code, SpanStatusCode.ERROR);
  t.is(failed.attributes["db.response.status_code"], "23505");
  t.false(JSON.stringify({ attributes: failed.attributes, status: failed.status, events: failed.events }).includes("dup"));
});

test.serial("outside a trace (a polling loop, say) a statement makes no span", async (t) => {
  await sql`select count(*) from items`;
  await transaction(sql, async (tx) => tx`select 1`);
  t.deepEqual(exporter.getFinishedSpans(), []);
});
