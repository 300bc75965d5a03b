// Small pieces every page shows the same way.
import { breakParts, rupiah, statusLabel, wib } from "./format.js";

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
  return <span class={`badge badge-${status}`}>{statusLabel(status)}</span>;
}

/**
 * An email, URL or such, breaking on a narrow screen only after `@ . / - _` (breakParts):
 * a <wbr> after each, and the `breakable` class (the page's CSS) turns off breaking
 * anywhere else.
 */
export function Breakable({ text, class: className }: { text: string; class?: string }) {
  const parts = breakParts(text);
  return (
    <span class={className ? `breakable ${className}` : "breakable"}>
      {parts.map((part, i) => (i < parts.length - 1 ? [part, <wbr />] : part))}
    </span>
  );
}

/** A payment reference (SO-…): short, so it never breaks. */
export function Reference({ value }: { value: string }) {
  return <span class="nowrap">{value}</span>;
}
