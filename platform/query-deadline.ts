// A call's deadline reaches the database: when the call a query serves is over (its
// deadline passed, or the client went away), the query is cancelled instead of running
// on for nobody. Before, an overview whose 1.2 s gateway deadline answered 503 left its
// scans running, and a client retrying multiplied the load.
import { AsyncLocalStorage } from "node:async_hooks";
import type { Interceptor } from "@connectrpc/connect";
import { hookQueries, type AnySql } from "./sql-hooks.js";

/** The call under way: its signal, and whether its handler has returned. */
interface Call {
  signal: AbortSignal;
  over: boolean;
}
const calls = new AsyncLocalStorage<Call>();

/**
 * Runs `work` (a handler) with every query it sends cancelled if `signal` aborts
 * before it returns. Work it started that runs on after it returned (a relay kicked by
 * its commit) inherits this context, but is past the call: its queries are left alone.
 */
export async function cancelQueriesWith<T>(signal: AbortSignal, work: () => Promise<T>): Promise<T> {
  const call: Call = { signal, over: false };
  try {
    return await calls.run(call, work);
  } finally {
    call.over = true;
  }
}

/** Runs background work started from a handler outside its call: none of its queries is the call's. */
export function outsideCall<T>(work: () => T): T {
  return calls.exit(work);
}

/** The server interceptor that gives a handler's queries its call's signal. */
export function queryDeadlineInterceptor(): Interceptor {
  return (next) => (request) => cancelQueriesWith(request.signal, () => next(request));
}

/** SQLSTATE query_canceled: PostgreSQL's answer to a cancelled statement. */
export const QUERY_CANCELED = "57014";

/**
 * `sql` whose queries, sent while a call's handler runs (cancelQueriesWith), are
 * cancelled when that call ends early. Outside a call (sweepers, relays) nothing changes.
 */
export function cancellableSql<T extends AnySql>(sql: T): T {
  return hookQueries(sql, {
    sent(query) {
      const call = calls.getStore();
      if (!call || call.over) return;
      const { signal } = call;
      // A handler's queries stop at the first one cancelled (it throws); one sent after
      // that, by code that swallowed the error, runs: cancelling a query before it is
      // on a connection is the one case postgres.js handles least well.
      if (signal.aborted) return;
      const cancel = () => {
        if (call.over) return;
        // Only a query not yet on a connection (postgres.js takes it out of the queue)
        // or the one its backend is running (a CancelRequest) is cancelled. One written
        // behind another on its connection is left to run: postgres.js stops tracking a
        // query cancelled there, and its answer is then read as the next query's — a row
        // of one statement handed to another caller.
        if (query.state && !query.active) return;
        void query.cancel();
      };
      signal.addEventListener("abort", cancel, { once: true });
      return () => signal.removeEventListener("abort", cancel);
    },
  });
}
