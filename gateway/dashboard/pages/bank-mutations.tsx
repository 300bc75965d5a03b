// Bank mutations (docs/dashboard.md#bank-mutations, docs/reconciliation.md#statements): import a statement, see what matched, and decide
// about the credits nothing matched (assign to an order, or dismiss), both audited.
import type { RouterInstance as Router } from "@koa/router";
import { Code, ConnectError } from "@connectrpc/connect";
import { amountDifferenceText, amountReceivedText, MAX_MUTATION_LIST_LIMIT } from "../../../common/bank-mutations.js";
import { StatementError } from "../../../common/bank-statement.js";
import { isPaymentReference } from "../../../common/ids.js";
import type { BankMutation, MutationResult } from "../../../gen/order/v1/bank_pb.js";
import type { Order } from "../../../gen/order/v1/order_pb.js";
import { ImportInterrupted, importStatement } from "../../bank-import.js";
import { Money, Time } from "../../html/components.js";
import { field } from "../forms.js";
import { fitList } from "../flash.js";
import { dashboardMode, flashMessage, forbiddenPage, may, problemText, seeOther, seeOtherWith, sendPage, shownOnce, type DashboardContext, type Kit } from "../kit.js";
import { Csrf, Empty, Shell, storePath } from "../views/layout.js";
import { DataTable } from "../views/data-table.js";
import { TestData, withMode } from "../views/test-data.js";

/** The confirmations shown once by the page after a review. */
const DONE = {
  assigned: "The transfer is assigned: the order is paid and your systems are told.",
  dismissed: "The transfer is dismissed from the review list.",
} as const;

/** One imported mutation's outcome, as the results table shows it. */
type ImportedRow = Pick<MutationResult, "id" | "result" | "orderId" | "reason">;

/**
 * An import's results, shown once by the page after it: the counts of all, the first
 * rows that fit in the flash, and how many more (Recent mutations lists them).
 */
interface ImportResults {
  kind: "bank_import";
  total: number;
  counts: Record<string, number>;
  rows: ImportedRow[];
  more: number;
}

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

function ResultsTable({ results, storeId }: { results: ImportedRow[]; storeId: string }) {
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
  results?: ImportResults;
  flash?: string;
  error?: string;
}) {
  const { member, store, csrf } = props.ctx.state.scope;
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
      {props.results && (
        <section aria-labelledby="results-title">
          <h2 id="results-title">
            Imported {props.results.total} mutations: {Object.entries(props.results.counts).map(([result, n]) => `${n} ${result}`).join(", ")}
          </h2>
          <ResultsTable results={props.results.rows} storeId={store.id} />
          {props.results.more > 0 && <p class="muted small">And {props.results.more} more: Recent mutations below lists them.</p>}
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

/**
 * "Assign anyway": a credit whose amount is not the order's transfer amount pays it only
 * once a person has seen the difference (docs/reconciliation.md#review). The order
 * service refuses the assignment without this page's flag whatever is posted.
 */
function DifferencePage(props: { ctx: DashboardContext; mutation: BankMutation; order: Order }) {
  const { member, store, csrf } = props.ctx.state.scope;
  const { mutation, order } = props;
  const { testMode } = dashboardMode(props.ctx);
  const difference = amountDifferenceText(mutation.amount, order.amount);
  return (
    <Shell title="Assign a transfer of another amount?" member={member} store={store} section="bank-mutations" csrf={csrf}>
      <div class="card">
        <dl class="details">
          <dt>Transfer</dt>
          <dd class="mono">{mutation.id}</dd>
          <dt>Transfer amount</dt>
          <dd>
            <Money amount={mutation.amount} />
          </dd>
          <dt>Order</dt>
          <dd>
            <a class="mono" href={withMode(storePath(store.id, `orders/${order.id}`), testMode)}>
              {order.paymentReference}
            </a>
          </dd>
          <dt>Order's transfer amount</dt>
          <dd>
            <Money amount={order.amount} />
          </dd>
          <dt>Difference</dt>
          <dd>
            <strong>{difference}</strong>
          </dd>
        </dl>
        <p>
          Assigning it pays the order in full: it turns paid and your systems are told. The order's history will say "
          {amountReceivedText(mutation.amount, order.amount)}". Do this only if the store accepts the difference.
        </p>
        <div class="actions">
          <form method="post" action={withMode(actionPath(store.id, "assign"), testMode)}>
            <Csrf token={csrf} />
            <input type="hidden" name="mutation_id" value={mutation.id} />
            <input type="hidden" name="payment_reference" value={order.paymentReference} />
            <input type="hidden" name="accept_amount_difference" value="yes" />
            <button type="submit">Assign anyway</button>
          </form>
          <a class="button secondary" href={withMode(storePath(store.id, "bank-mutations"), testMode)}>
            Back to bank mutations
          </a>
        </div>
      </div>
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
  router.get(`${base}/assign`, storeScope, handle(confirmDifference));
  router.post(`${base}/assign`, storeScope, handle(assignMutation));
  router.post(`${base}/dismiss`, storeScope, handle(dismissMutation));

  async function bankMutationsPage(ctx: DashboardContext) {
    sendPage(ctx, <BankPage ctx={ctx} {...await lists(ctx)} flash={flashMessage(ctx)} results={shownOnce<ImportResults>(ctx, "bank_import")} />);
  }

  async function importBankStatement(ctx: DashboardContext) {
    const { store, file } = ctx.state.scope;
    if (!file || file.text.trim() === "") return sendPage(ctx, <BankPage ctx={ctx} {...await lists(ctx)} error="Choose a statement file (CSV) to import." />, 400);
    try {
      const { testMode } = dashboardMode(ctx);
      const results = await importStatement(clients.bank, store.id, file.text, testMode);
      // The results ride to the page in the flash: a reload shows the page, not a second import.
      const counts: Record<string, number> = {};
      for (const r of results) counts[r.result] = (counts[r.result] ?? 0) + 1;
      const rows = results.map(({ id, result, orderId, reason }): ImportedRow => ({ id, result, orderId, reason }));
      const page = withMode(storePath(store.id, "bank-mutations"), testMode);
      seeOtherWith(
        ctx,
        page,
        fitList(storePath(store.id, "bank-mutations"), store.id, rows, (shown, more) => ({ shown: { kind: "bank_import", total: results.length, counts, rows: shown, more } satisfies ImportResults })),
      );
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

  /**
   * The waiting credit and the order the reference names, when both are there and
   * their amounts differ: what "Assign anyway" asks about. Reads only; the order
   * service decides again when the assignment is posted.
   */
  async function differing(ctx: DashboardContext, mutationId: string, paymentReference: string): Promise<{ mutation: BankMutation; order: Order } | undefined> {
    const storeId = ctx.state.scope.store.id;
    const { testMode } = dashboardMode(ctx);
    const reference = paymentReference.toUpperCase();
    // Not a reference at all: the order service's refusal names the field.
    if (!isPaymentReference(reference)) return undefined;
    const [waiting, found] = await Promise.all([
      clients.bank.listMutations({ storeId, review: true, limit: MAX_MUTATION_LIST_LIMIT, testMode }),
      clients.order.listOrders({ storeId, search: reference, limit: 10, testMode }),
    ]);
    const mutation = waiting.mutations.find((m) => m.id === mutationId);
    const order = found.orders.find((o) => o.paymentReference === reference);
    if (!mutation || !order || mutation.amount === order.amount) return undefined;
    return { mutation, order };
  }

  /** GET …/assign?mutation_id=…&payment_reference=…: the difference and "Assign anyway", or back to the list when there is none to confirm. */
  async function confirmDifference(ctx: DashboardContext) {
    const storeId = ctx.state.scope.store.id;
    if (!may(ctx, "payments")) return forbiddenPage(ctx, "payments");
    const found = await differing(ctx, String(ctx.query.mutation_id ?? ""), String(ctx.query.payment_reference ?? "").trim());
    if (!found) return seeOther(ctx, withMode(storePath(storeId, "bank-mutations"), dashboardMode(ctx).testMode));
    sendPage(ctx, <DifferencePage ctx={ctx} {...found} />);
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
        const acceptAmountDifference = field(ctx.state.scope.form, "accept_amount_difference") === "yes";
        // A differing amount is shown for confirmation first; the order service would refuse it anyway.
        // A role that may not assign goes straight to the service's refusal (the 403 page).
        if (!acceptAmountDifference && may(ctx, "payments") && (await differing(ctx, mutationId, paymentReference))) {
          return seeOther(ctx, withMode(actionPath(storeId, "assign"), testMode, { mutation_id: mutationId, payment_reference: paymentReference }));
        }
        await clients.bank.assignMutation({ storeId, mutationId, paymentReference, testMode, acceptAmountDifference });
      } else {
        await clients.bank.dismissMutation({ storeId, mutationId, testMode });
      }
      seeOtherWith(ctx, withMode(storePath(storeId, "bank-mutations"), testMode), { message: DONE[action === "assign" ? "assigned" : "dismissed"] });
    } catch (error) {
      // An unknown reference is a typing mistake on this form, not a missing page.
      const notFound = error instanceof ConnectError && error.code === Code.NotFound && action === "assign";
      const problem = notFound ? "no order of this store has that payment reference, or the transfer is not in the review list" : problemText(error);
      if (!problem) throw error;
      sendPage(ctx, <BankPage ctx={ctx} {...await lists(ctx)} error={`Not changed: ${problem}`} />, notFound ? 400 : 409);
    }
  }
}
