// postgres.js has no hooks, and every query of a pool goes through the `sql` connectDb
// returns (or a transaction's, or a reserved connection's, which it hands out).
// hookQueries wraps that one object so that something can happen as each query is sent
// and when it settles: tracing's spans (tracing.ts) and cancelling a query when the
// call it serves is over (query-deadline.ts).
import type postgres from "postgres";

// Every pool's `sql` fits, whatever custom types (the `bigint` parser) it was made with.
export type AnySql = postgres.Sql;

export interface PendingQuery extends Promise<unknown> {
  executed: boolean;
  handle(): Promise<void>;
  cancel(): unknown;
  /** Set by postgres.js once the query is written to a connection (its backend's key). */
  state?: unknown;
  /** Set by postgres.js while the query is the one its connection's backend is running. */
  active?: boolean;
  /** The statement as sent, `$1`-style placeholders and no values (set when postgres.js builds it). */
  string?: string;
  strings: readonly string[];
}

export interface QueryHooks {
  /**
   * Called once, as the query is sent (postgres.js sends it the first time it is
   * awaited, never for a fragment nested in another), in the awaiting code's async
   * context. What it returns is called when the query settles, with its error if any.
   */
  sent(query: PendingQuery): ((error?: unknown) => void) | void;
  /** Wraps a transaction or savepoint (`name`) as a whole, if given. */
  scope?<T>(name: "transaction" | "savepoint", run: () => Promise<T>): Promise<T>;
}

const isQuery = (value: unknown): value is PendingQuery =>
  value instanceof Promise && typeof (value as Partial<PendingQuery>).handle === "function";

/** `sql` with `hooks` on every query it, its transactions and reserved connections send. */
export function hookQueries<T extends AnySql>(sql: T, hooks: QueryHooks): T {
  const wrapped = new Map<PropertyKey, unknown>();
  // The callback of begin/savepoint gets the transaction's own `sql`: hook it too.
  const scoped =
    (name: "transaction" | "savepoint", method: (...args: unknown[]) => Promise<unknown>) =>
    (...args: unknown[]) => {
      const work = args.pop() as (tx: AnySql) => unknown;
      const call = () => method.apply(sql, [...args, (tx: AnySql) => work(hookQueries(tx, hooks))]);
      return hooks.scope ? hooks.scope(name, call) : call();
    };
  return new Proxy(sql, {
    apply(target, thisArg, args) {
      const result: unknown = Reflect.apply(target, thisArg, args);
      return isQuery(result) ? hookQuery(result, hooks) : result;
    },
    get(target, property) {
      const value = Reflect.get(target, property, target) as unknown;
      if (typeof value !== "function") return value;
      if (wrapped.has(property)) return wrapped.get(property);
      let replacement: unknown = value;
      if (property === "unsafe" || property === "file") {
        replacement = (...args: unknown[]) => hookQuery((value as (...a: unknown[]) => PendingQuery).apply(target, args), hooks);
      } else if (property === "begin" || property === "savepoint") {
        replacement = scoped(property === "begin" ? "transaction" : "savepoint", value as (...args: unknown[]) => Promise<unknown>);
      } else if (property === "reserve") {
        replacement = async (...args: unknown[]) => hookQueries(await (value as (...a: unknown[]) => Promise<AnySql>).apply(target, args), hooks);
      }
      wrapped.set(property, replacement);
      return replacement;
    },
  });
}

function hookQuery(query: PendingQuery, hooks: QueryHooks): PendingQuery {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called below as handle.call(this), on the query itself
  const handle = query.handle;
  query.handle = function (this: PendingQuery) {
    if (!this.executed) {
      const settled = hooks.sent(this);
      // Promise's own then: no second handle(), and this reaction swallows nothing
      // the caller's own await sees.
      if (settled) void Promise.prototype.then.call(this, () => settled(), (error: unknown) => settled(error ?? "error"));
    }
    return handle.call(this);
  };
  return query;
}
