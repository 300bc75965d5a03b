// Bank mutations (docs/dashboard.md#bank-mutations, docs/reconciliation.md#statements): import a statement, see what matched, and decide
// about the credits nothing matched (assign to an order, or dismiss), both audited.
import type { RouterInstance as Router } from "@koa/router";
import { Code, ConnectError } from "@connectrpc/connect";
import { StatementError } from "../../../common/bank-statement.js";
import type { BankMutation, MutationResult } from "../../../gen/order/v1/bank_pb.js";
import { ImportInterrupted, importStatement } from "../../bank-import.js";
import { Money, Time } from "../../html/components.js";
import { field } from "../forms.js";
import { dashboardMode, may, problemText, seeOther, sendPage, type DashboardContext, type Kit } from "../kit.js";
import { Csrf, Empty, Shell, storePath } from "../views/layout.js";
import { DataTable } from "../views/data-table.js";
import { TestData, withMode } from "../views/test-data.js";

const DONE: Record<string, string> = {
  assigned: "The transfer is assigned: the order is paid and your systems are told.",
  dismissed: "The transfer is dismissed from the review list.",
};

const RESULT_BADGE: Record<string, string> = { matched: "paid", assigned: "paid", unmatched: "failed", duplicate: "expired", ignored: "expired", dismissed: "expired" };

const RESULT_LABELS: Record<string, string> = {
  matched: "Matched",
  assigned: "Assigned",
  unmatched: "Unmatched",
  duplicate: "Duplicate",
  ignored: "Ignored",
  dismissed: "Dismissed",
};

function Badge({ value }: { value: string }) {
  return <span class={`badge badge-${RESULT_BADGE[value] ?? "expired"}`}>{RESULT_LABELS[value] ?? value}</span>;
}

// The mutation id travels in the form body, not the path: ids are the bank's own text,
// and a browser collapses a path segment of "." or ".." before it posts.
const actionPath = (storeId: string, action: "assign" | "dismiss") => storePath(storeId, `bank-mutations/${action}`);

/**
 * Transfers to review listed at once, newest first. Each is a row with its own forms: a
 * busy store's queue of hundreds made the page cost follow the queue.
 */
const REVIEW_PAGE = 50;

function ReviewList(props: { ctx: DashboardContext; review: BankMutation[] }) {
  const { store, csrf } = props.ctx.state.scope;
  // Assign and dismiss are the payments permission's (docs/team.md#roles); every role sees the list.
  const decides = may(props.ctx, "payments");
  if (props.review.length === 0) {
    return (
      <Empty title="Nothing waits for review">
        <p>Credits that match no order by their exact amount appear here, so you can assign them to an order or dismiss them.</p>
      </Empty>
    );
  }
  return (
    <DataTable head={["Transfer", "Amount", "Why it did not match", "Decide"]}>
      {props.review.map((m) => (
        <tr>
          <td>
            <span class="mono">{m.id}</span>
            <div class="muted small">
              <Time iso={m.occurredAt} />
            </div>
            <div class="small">{m.description}</div>
          </td>
          <td>
            <Money amount={m.amount} />
          </td>
          <td>{m.reason}</td>
          <td>
            {!decides && <span class="muted small">Your role may not assign or dismiss transfers.</span>}
            {decides && (
              <>
                <form class="inline" method="post" action={withMode(actionPath(store.id, "assign"), dashboardMode(props.ctx).testMode)}>
                  <Csrf token={csrf} />
                  <input type="hidden" name="mutation_id" value={m.id} />
                  <label>
                    Payment reference
                    <input type="text" name="payment_reference" placeholder="SO-…" required />
                  </label>
                  <button type="submit">Assign to order</button>
                </form>
                <form method="post" action={withMode(actionPath(store.id, "dismiss"), dashboardMode(props.ctx).testMode)} style="margin-top:8px">
                  <Csrf token={csrf} />
                  <input type="hidden" name="mutation_id" value={m.id} />
                  <button type="submit" class="secondary">
                    Dismiss
                  </button>
                </form>
              </>
            )}
          </td>
        </tr>
      ))}
    </DataTable>
  );
}

function ResultsTable({ results, storeId }: { results: MutationResult[]; storeId: string }) {
  return (
    <DataTable head={["Mutation", "Result", "Order", "Reason"]}>
      {results.map((r) => (
        <tr>
          <td class="mono">{r.id}</td>
          <td>
            <Badge value={r.result} />
          </td>
          <td class="nowrap">{r.orderId ? <a href={storePath(storeId, `orders/${r.orderId}`)}>Open order</a> : "—"}</td>
          <td>{r.reason || "—"}</td>
        </tr>
      ))}
    </DataTable>
  );
}

function BankPage(props: {
  ctx: DashboardContext;
  review: BankMutation[];
  /** How many wait for review in all: the list shows the newest REVIEW_PAGE. */
  waiting: number;
  recent: BankMutation[];
  results?: MutationResult[];
  flash?: string;
  error?: string;
}) {
  const { member, store, csrf } = props.ctx.state.scope;
  const counts = props.results?.reduce<Record<string, number>>((out, r) => ({ ...out, [r.result]: (out[r.result] ?? 0) + 1 }), {});
  return (
    <Shell title="Bank mutations" member={member} store={store} section="bank-mutations" csrf={csrf} flash={props.flash} error={props.error}>
      <TestData path={storePath(store.id, "bank-mutations")} query={props.ctx.query} testMode={dashboardMode(props.ctx).testMode} />
      <p class="muted">
        Each incoming transfer is matched to the bank-transfer order with exactly its amount (the unique code makes it tell orders apart). Connect a bank
        feed to POST /v1/bank-mutations, or import a statement here.
      </p>
      {may(props.ctx, "payments") && (
        <form class="inline card" method="post" action={withMode(storePath(store.id, "bank-mutations/import"), dashboardMode(props.ctx).testMode)} enctype="multipart/form-data">
          <Csrf token={csrf} />
          <label>
            Statement file (CSV)
            <input type="file" name="statement" accept=".csv,text/csv" required />
          </label>
          <button type="submit">Import</button>
          <p class="muted small" style="flex-basis:100%;margin:0">
            Columns <span class="mono">id,occurred_at,amount,type,description</span> with that header row; times with an offset (2026-11-20T10:15:00+07:00).
          </p>
        </form>
      )}
      {props.results && counts && (
        <section aria-labelledby="results-title">
          <h2 id="results-title">
            Imported {props.results.length} mutations: {Object.entries(counts).map(([result, n]) => `${n} ${result}`).join(", ")}
          </h2>
          <ResultsTable results={props.results} storeId={store.id} />
        </section>
      )}
      <h2>Waiting for review ({props.waiting})</h2>
      {props.waiting > props.review.length && (
        <p class="muted small">
          The newest {props.review.length} are shown: each one assigned or dismissed makes room for the next.
        </p>
      )}
      <ReviewList ctx={props.ctx} review={props.review} />
      <h2>Recent mutations</h2>
      {props.recent.length === 0 ? (
        <Empty title="No mutations yet">
          <p>Import a statement above, or let your bank feed send them to the API.</p>
        </Empty>
      ) : (
        <DataTable head={["Time", "Mutation", "Amount", "Status", "Order"]}>
          {props.recent.map((m) => (
            <tr>
              <td>
                <Time iso={m.occurredAt} />
              </td>
              <td class="mono">{m.id}</td>
              <td>
                {m.type === "debit" ? "−" : ""}
                <Money amount={m.amount} />
              </td>
              <td>
                <Badge value={m.status} />
                {m.reason && <div class="muted small">{m.reason}</div>}
              </td>
              <td class="nowrap">{m.orderId ? <a href={storePath(store.id, `orders/${m.orderId}`)}>{m.paymentReference || m.orderId}</a> : "—"}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </Shell>
  );
}

export function bankMutationPages(router: Router, kit: Kit) {
  const { clients, handle, storeScope } = kit;
  const base = "/dashboard/stores/:storeId/bank-mutations";

  async function lists(ctx: DashboardContext) {
    const storeId = ctx.state.scope.store.id;
    // ?mode=test: the store's test mutations (docs/reconciliation.md#test-mode).
    const { testMode } = dashboardMode(ctx);
    const [review, waiting, recent] = await Promise.all([
      clients.bank.listMutations({ storeId, review: true, limit: REVIEW_PAGE, testMode }),
      clients.bank.countUnreviewed({ storeId, testMode }),
      clients.bank.listMutations({ storeId, review: false, limit: 50, testMode }),
    ]);
    return { review: review.mutations, waiting: Math.max(Number(waiting.count), review.mutations.length), recent: recent.mutations };
  }

  router.get(base, storeScope, handle(bankMutationsPage));
  router.post(`${base}/import`, storeScope, handle(importBankStatement));
  router.post(`${base}/assign`, storeScope, handle(assignMutation));
  router.post(`${base}/dismiss`, storeScope, handle(dismissMutation));

  async function bankMutationsPage(ctx: DashboardContext) {
    sendPage(ctx, <BankPage ctx={ctx} {...await lists(ctx)} flash={DONE[String(ctx.query.done)]} />);
  }

  async function importBankStatement(ctx: DashboardContext) {
    const { store, file } = ctx.state.scope;
    if (!file || file.text.trim() === "") return sendPage(ctx, <BankPage ctx={ctx} {...await lists(ctx)} error="Choose a statement file (CSV) to import." />, 400);
    try {
      const results = await importStatement(clients.bank, store.id, file.text, dashboardMode(ctx).testMode);
      sendPage(ctx, <BankPage ctx={ctx} {...await lists(ctx)} results={results} />);
    } catch (error) {
      if (error instanceof ImportInterrupted) {
        ctx.set("Retry-After", "2");
        return sendPage(ctx, <BankPage ctx={ctx} {...await lists(ctx)} error={`Partly imported: ${error.message}.`} />, 503);
      }
      if (!(error instanceof StatementError)) throw error;
      sendPage(ctx, <BankPage ctx={ctx} {...await lists(ctx)} error={`Nothing was imported: ${error.message}`} />, 400);
    }
  }

  async function assignMutation(ctx: DashboardContext) {
    return reviewMutation(ctx, "assign");
  }

  async function dismissMutation(ctx: DashboardContext) {
    return reviewMutation(ctx, "dismiss");
  }

  /** Assigning and dismissing share the form's field, the redirect and the refusal page. */
  async function reviewMutation(ctx: DashboardContext, action: "assign" | "dismiss") {
    const storeId = ctx.state.scope.store.id;
    const mutationId = field(ctx.state.scope.form, "mutation_id");
    const { testMode } = dashboardMode(ctx);
    try {
      if (action === "assign") {
        const paymentReference = field(ctx.state.scope.form, "payment_reference").trim();
        if (paymentReference === "") return sendPage(ctx, <BankPage ctx={ctx} {...await lists(ctx)} error="Not changed: type the payment reference (SO-…) of the order this transfer pays." />, 400);
        await clients.bank.assignMutation({ storeId, mutationId, paymentReference, testMode });
      } else {
        await clients.bank.dismissMutation({ storeId, mutationId, testMode });
      }
      seeOther(ctx, withMode(`${storePath(storeId, "bank-mutations")}?done=${action === "assign" ? "assigned" : "dismissed"}`, testMode));
    } catch (error) {
      // An unknown reference is a typing mistake on this form, not a missing page.
      const notFound = error instanceof ConnectError && error.code === Code.NotFound && action === "assign";
      const problem = notFound ? "no order of this store has that payment reference, or the transfer is not in the review list" : problemText(error);
      if (!problem) throw error;
      sendPage(ctx, <BankPage ctx={ctx} {...await lists(ctx)} error={`Not changed: ${problem}`} />, notFound ? 400 : 409);
    }
  }
}
