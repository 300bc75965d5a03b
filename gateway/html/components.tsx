// Small pieces every page shows the same way.
import { rupiah, STATUS_LABELS, wib } from "./format.js";

/** A time in WIB, with the exact instant in `datetime` and as a tooltip. */
export function Time({ iso }: { iso: string }) {
  if (!iso) return <span class="muted">—</span>;
  return (
    <time dateTime={iso} title={iso}>
      {wib(iso)}
    </time>
  );
}

export function Money({ amount }: { amount: bigint | number }) {
  return <span class="num">{rupiah(amount)}</span>;
}

export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge badge-${status}`}>{STATUS_LABELS[status] ?? status}</span>;
}
